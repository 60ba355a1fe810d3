package graftctl

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// An unknown --api is refused before any command reads the kubeconfig.
func TestInvalidAPIFlagIsRefused(t *testing.T) {
	for _, args := range [][]string{{"--api=gardener", "get", "seeds"}, {"cordon", "a", "--api", "core.gardener.cloud/v1beta1"}, {"--api=x", "version", "--client"}} {
		var out bytes.Buffer
		cmd := NewGraftctlCommand(genericiooptions.IOStreams{In: &bytes.Buffer{}, Out: &out, ErrOut: &out})
		cmd.SetArgs(append([]string{"--kubeconfig", "/nonexistent"}, args...))
		err := cmd.ExecuteContext(context.Background())
		if err == nil || !strings.Contains(err.Error(), "invalid --api") || !strings.Contains(err.Error(), "must be core.graft.dev (graft's own API) or core.gardener.cloud (a Gardener garden)") {
			t.Errorf("graftctl %q: error %v, want the refusal of --api", args, err)
		}
	}
}

// Installed as kubectl-graft, graftctl's usage says `kubectl graft`, as
// kubectl runs it; under its own name it says graftctl.
func TestActsAsKubectlPlugin(t *testing.T) {
	for argv0, want := range map[string]string{"/usr/local/bin/kubectl-graft": "kubectl graft taint seed NAME", "./graftctl": "graftctl taint seed NAME"} {
		var out bytes.Buffer
		cmd := NewGraftctlCommand(genericiooptions.IOStreams{In: &bytes.Buffer{}, Out: &out, ErrOut: &out})
		ActAs(cmd, argv0)
		cmd.SetOut(&out)
		cmd.SetArgs([]string{"taint", "--help"})
		if err := cmd.ExecuteContext(context.Background()); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), want) {
			t.Errorf("run as %s, help lacks %q:\n%s", argv0, want, out.String())
		}
	}
}
