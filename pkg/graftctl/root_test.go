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
