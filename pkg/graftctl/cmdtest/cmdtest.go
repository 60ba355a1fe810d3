package cmdtest

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/graft-dev/client-go/clientset/versioned"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"
	"github.com/graft-dev/graft/pkg/graftctl/factory"
)

// Run runs the command newCmd makes over f with args and stdin, and returns
// what it wrote to stdout and to stderr, and its error.
func Run(t testing.TB, newCmd func(factory.Factory, genericiooptions.IOStreams) *cobra.Command, f factory.Factory, stdin string, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := newCmd(f, genericiooptions.IOStreams{In: bytes.NewBufferString(stdin), Out: &out, ErrOut: &errOut})
	if args == nil {
		args = []string{} // nil would make cobra read the test binary's own arguments
	}
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err := cmd.ExecuteContext(context.Background())
	return out.String(), errOut.String(), err
}

// SeedTaints returns the taints of the named seed in client, as graftctl
// prints them, comma-separated.
func SeedTaints(t testing.TB, client versioned.Interface, name string) string {
	t.Helper()
	s, err := client.CoreV1alpha1().Seeds().Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return helper.FormatTaints(s.Spec.Taints, ",")
}

// Contains fails the test for each of wants that out lacks.
func Contains(t testing.TB, out string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
