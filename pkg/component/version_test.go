package component

import (
	"bytes"
	"context"
	"strings"
	"testing"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/pkg/component/buildversion"
)

func newTestSpec(ran *bool) CommandSpec[*configv1alpha1.SchedulerConfiguration] {
	return CommandSpec[*configv1alpha1.SchedulerConfiguration]{
		Name: "graft-test",
		Kind: "SchedulerConfiguration",
		Run: func(context.Context, *configv1alpha1.SchedulerConfiguration, Clients) error {
			*ran = true
			return nil
		},
	}
}

// runVersion runs the command with args and resets verflag's global flag
// afterwards, so that other tests do not see --version.
func runVersion(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var ran bool
	cmd := NewCommand(newTestSpec(&ran))
	t.Cleanup(func() {
		if err := cmd.Flags().Set("version", "false"); err != nil {
			t.Fatal(err)
		}
	})
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(context.Background())
	if ran {
		t.Errorf("%v: the component ran", args)
	}
	return out.String(), err
}

func TestVersionFlagPrintsNameAndVersionWithoutConfig(t *testing.T) {
	out, err := runVersion(t, "--version")
	if err != nil {
		t.Fatalf("--version: %v", err)
	}
	want := "graft-test " + buildversion.Get().GitVersion + "\n"
	if out != want {
		t.Errorf("--version printed %q, want %q", out, want)
	}
}

func TestVersionFlagRawPrintsEveryField(t *testing.T) {
	out, err := runVersion(t, "--version=raw")
	if err != nil {
		t.Fatalf("--version=raw: %v", err)
	}
	for _, field := range []string{"GitVersion:", "GitCommit:", "GoVersion:", "Platform:"} {
		if !strings.Contains(out, field) {
			t.Errorf("--version=raw printed %q, want a %s field", out, field)
		}
	}
}

func TestWithoutVersionFlagTheConfigIsRequired(t *testing.T) {
	out, err := runVersion(t)
	if err == nil || !strings.Contains(err.Error(), "--config is required") {
		t.Errorf("no flags: %v, want --config is required", err)
	}
	if out != "" {
		t.Errorf("no flags printed %q", out)
	}
}
