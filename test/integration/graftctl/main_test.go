//go:build integration

package graftctl

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/graft-dev/graft/pkg/graftctl"
	"github.com/graft-dev/graft/test/framework"
)

func TestMain(m *testing.M) { framework.Main(m) }

// result is what one graftctl invocation printed and whether it failed.
type result struct {
	out, errOut string
	err         error
}

// graftctlAs runs graftctl with the given kubeconfig as the binary does:
// errors are printed by graftctl.PrintError.
func graftctlAs(ctx context.Context, kubeconfig string, args ...string) result {
	var out, errOut bytes.Buffer
	cmd := graftctl.NewGraftctlCommand(genericiooptions.IOStreams{In: &bytes.Buffer{}, Out: &out, ErrOut: &errOut})
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs(append([]string{"--kubeconfig", kubeconfig}, args...))
	err := cmd.ExecuteContext(ctx)
	if err != nil {
		graftctl.PrintError(&errOut, err)
	}
	return result{out: out.String(), errOut: errOut.String(), err: err}
}

// run is graftctlAs with the admin kubeconfig; it fails the test on error.
func run(t *testing.T, args ...string) string {
	t.Helper()
	r := graftctlAs(t.Context(), framework.Shared(t).Kubeconfig, args...)
	if r.err != nil {
		t.Fatalf("graftctl %q: %v\nstdout:\n%s\nstderr:\n%s", args, r.err, r.out, r.errOut)
	}
	return r.out
}

// fail runs graftctl as admin, expects it to fail and returns what it printed on stderr.
func fail(t *testing.T, args ...string) result {
	t.Helper()
	r := graftctlAs(t.Context(), framework.Shared(t).Kubeconfig, args...)
	if r.err == nil {
		t.Fatalf("graftctl %q succeeded, want an error\nstdout:\n%s", args, r.out)
	}
	return r
}

func tempKubeconfig(t *testing.T) string {
	return filepath.Join(t.TempDir(), "kubeconfig")
}
