//go:build integration

package graftctl

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"

	"github.com/graft-dev/graft/test/integration/descheduler/fixture"
)

func liveTaints(t *testing.T, l *fixture.Landscape, short string) string {
	t.Helper()
	seed, err := l.Graft.CoreV1alpha1().Seeds().Get(context.Background(), l.SeedName(short), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return helper.FormatTaints(seed.Spec.Taints, ",")
}

func newLandscape(t *testing.T, name string, seeds ...string) *fixture.Landscape {
	t.Helper()
	ctx := t.Context()
	l, err := fixture.New(ctx, envConfig(t), name)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range seeds {
		if _, err := l.Seed(ctx, s, -1); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { _ = l.Delete(context.Background()) })
	return l
}

func TestTaint(t *testing.T) {
	l := newLandscape(t, "gctl-taint", "a", "b")
	a, b := l.SeedName("a"), l.SeedName("b")

	expect := func(got, want string) {
		t.Helper()
		if got != want {
			t.Errorf("output %q, want %q", got, want)
		}
	}
	expect(run(t, "taint", "seed", a, "dedicated=team-a:NoSchedule"), "seed/"+a+" tainted\n")
	if got := liveTaints(t, l, "a"); got != "dedicated=team-a:NoSchedule" {
		t.Errorf("live taints %s", got)
	}
	r := fail(t, "taint", "seed", a, "dedicated=team-b:NoSchedule")
	expect(r.errOut, "error: seed "+a+" already has dedicated taint(s) with same effect(s) and --overwrite is false\n")
	expect(run(t, "taint", "seed", a, "dedicated=team-b:NoSchedule", "--overwrite"), "seed/"+a+" modified\n")
	if got := liveTaints(t, l, "a"); got != "dedicated=team-b:NoSchedule" {
		t.Errorf("live taints after overwrite %s", got)
	}
	expect(run(t, "taint", "seeds", a, b, "maintenance:PreferNoSchedule"), "seed/"+a+" tainted\nseed/"+b+" tainted\n")
	expect(run(t, "taint", "seed", a, "dedicated-"), "seed/"+a+" untainted\n")
	if got := liveTaints(t, l, "a"); got != "maintenance:PreferNoSchedule" {
		t.Errorf("live taints after removal %s", got)
	}

	expect(fail(t, "taint", "seed", a, "x=y:Sometimes").errOut, "error: invalid taint effect: Sometimes, unsupported taint effect\n")
	expect(fail(t, "taint", "seed", a, "nothere:NoSchedule-").errOut, "error: taint \"nothere:NoSchedule\" not found\n")
	expect(fail(t, "taint", "seed", a, "k=v:NoSchedule", "k-").errOut, "error: can not both modify and remove the following taint(s) in the same command: k=\n")
	expect(fail(t, "taint", "seed", "gctl-taint-none", "k:NoSchedule").errOut, "error: seeds.core.graft.dev \"gctl-taint-none\" not found\n")
}

func TestCordonUncordon(t *testing.T) {
	l := newLandscape(t, "gctl-cordon", "a", "b")
	a, b := l.SeedName("a"), l.SeedName("b")

	if out := run(t, "cordon", a); out != "seed/"+a+" cordoned\n" {
		t.Errorf("cordon: %q", out)
	}
	if out := run(t, "cordon", a, b); out != "seed/"+a+" already cordoned\nseed/"+b+" cordoned\n" {
		t.Errorf("second cordon: %q", out)
	}
	if got := liveTaints(t, l, "a"); got != "seed.gardener.cloud/unschedulable:NoSchedule" {
		t.Errorf("live taints after cordon %s", got)
	}
	// Uncordon also lifts a drain.
	if err := l.SetTaints(t.Context(), "a",
		corev1alpha1.SeedTaint{Key: corev1alpha1.SeedTaintUnschedulable, Effect: corev1alpha1.TaintEffectNoSchedule},
		corev1alpha1.SeedTaint{Key: "keep", Effect: corev1alpha1.TaintEffectPreferNoSchedule},
		corev1alpha1.SeedTaint{Key: corev1alpha1.SeedTaintUnschedulable, Effect: corev1alpha1.TaintEffectNoExecute},
	); err != nil {
		t.Fatal(err)
	}
	if out := run(t, "uncordon", a); out != "seed/"+a+" uncordoned\n" {
		t.Errorf("uncordon: %q", out)
	}
	if got := liveTaints(t, l, "a"); got != "keep:PreferNoSchedule" {
		t.Errorf("live taints after uncordon %s", got)
	}
	// The fixture labels its seeds with the landscape's name.
	if out := run(t, "uncordon", "-l", "fixture.graft.dev/landscape=gctl-cordon"); out != "seed/"+a+" already uncordoned\nseed/"+b+" uncordoned\n" {
		t.Errorf("uncordon -l: %q", out)
	}
}

func TestServerDryRunChangesNothing(t *testing.T) {
	l := newLandscape(t, "gctl-dryrun", "a", "b")
	a := l.SeedName("a")
	ctx := t.Context()
	before, err := l.Graft.CoreV1alpha1().Seeds().Get(ctx, a, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if out := run(t, "taint", "seed", a, "k=v:NoExecute", "--dry-run=server"); out != "seed/"+a+" tainted (server dry run)\n" {
		t.Errorf("taint: %q", out)
	}
	if out := run(t, "cordon", a, "--dry-run=server"); out != "seed/"+a+" cordoned (server dry run)\n" {
		t.Errorf("cordon: %q", out)
	}
	if out := run(t, "cordon", a, "--dry-run=server", "-o", "jsonpath={.spec.taints[0].key}"); out != corev1alpha1.SeedTaintUnschedulable {
		t.Errorf("cordon -o jsonpath: %q, want the API server's dry-run answer with the taint", out)
	}
	out := run(t, "drain", a, "--dry-run=server")
	if want := "seed/" + a + " cordoned (server dry run)\nseed/" + a + " marked for eviction (seed.gardener.cloud/unschedulable:NoExecute) (server dry run)\n"; len(out) < len(want) || out[:len(want)] != want {
		t.Errorf("drain: %q", out)
	}
	after, err := l.Graft.CoreV1alpha1().Seeds().Get(ctx, a, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if after.ResourceVersion != before.ResourceVersion || len(after.Spec.Taints) != 0 {
		t.Errorf("server dry run changed the seed: resourceVersion %s -> %s, taints %s", before.ResourceVersion, after.ResourceVersion, helper.FormatTaints(after.Spec.Taints, ","))
	}
}
