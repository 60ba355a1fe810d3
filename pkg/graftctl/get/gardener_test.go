package get

import (
	"bytes"
	"context"
	"testing"

	"github.com/graft-dev/graft/pkg/coretest"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/graft-dev/client-go/clientset/versioned/fake"

	"github.com/graft-dev/graft/pkg/garden"
	"github.com/graft-dev/graft/pkg/graftctl/factory"
)

// asGardener returns the objects as gardener-apiserver would serve them:
// core.gardener.cloud/v1beta1, seed taints without effects.
func asGardener(t *testing.T, objs []runtime.Object) []runtime.Object {
	t.Helper()
	out := make([]runtime.Object, 0, len(objs))
	for _, o := range objs {
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
		if err != nil {
			t.Fatal(err)
		}
		u := &unstructured.Unstructured{Object: m}
		kind := map[bool]string{true: "Seed", false: "Shoot"}[u.GetNamespace() == ""]
		u.SetAPIVersion("core.gardener.cloud/v1beta1")
		u.SetKind(kind)
		if taints, ok, _ := unstructured.NestedSlice(m, "spec", "taints"); ok {
			for _, taint := range taints {
				delete(taint.(map[string]any), "effect")
			}
			_ = unstructured.SetNestedSlice(m, taints, "spec", "taints")
		}
		out = append(out, u)
	}
	return out
}

func runWith(t *testing.T, f factory.Factory, args ...string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := NewCommand(f, genericiooptions.IOStreams{In: &bytes.Buffer{}, Out: &out, ErrOut: &errOut})
	cmd.SetArgs(args)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatalf("get %q: %v\n%s", args, err, errOut.String())
	}
	return out.String()
}

// TestGetOnGardenerPrintsAsOnGraft reads the same landscape through
// Gardener's API and through graft's: the tables are the same.
func TestGetOnGardenerPrintsAsOnGraft(t *testing.T) {
	graft := &factory.Static{Graft: fake.NewSimpleClientset(objects()...), DefaultNamespace: "dev"}
	gardener := &factory.Static{API: garden.Gardener, Dynamic: coretest.FakeGardener(asGardener(t, objects())...), DefaultNamespace: "dev"}
	for _, args := range [][]string{{"seeds"}, {"seeds", "-o", "wide"}, {"seed", "aws-eu1"}, {"shoots"}, {"shoots", "-A", "-o", "wide"}, {"shoot", "s1"}} {
		want := runWith(t, graft, args...)
		if got := runWith(t, gardener, args...); got != want {
			t.Errorf("get %q on Gardener:\n%s\nwant, as on graft's API:\n%s", args, got, want)
		}
	}
}
