package drain

import (
	"testing"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/graft-dev/client-go/clientset/versioned/fake"
	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"

	"github.com/graft-dev/graft/pkg/coretest"
	"github.com/graft-dev/graft/pkg/graftctl/cmdtest"
	"github.com/graft-dev/graft/pkg/graftctl/factory"
)

func cordonSeed(name string, labels map[string]string, taints ...corev1alpha1.SeedTaint) *corev1alpha1.Seed {
	return coretest.MakeSeed(name).Labels(labels).Taints(taints...).Obj()
}

func runCordon(t *testing.T, newCmd func(factory.Factory, genericiooptions.IOStreams) *cobra.Command, client *fake.Clientset, args ...string) (string, error) {
	t.Helper()
	out, errOut, err := cmdtest.Run(t, newCmd, &factory.Static{Graft: client}, "", args...)
	return out + errOut, err
}

var otherTaint = corev1alpha1.SeedTaint{Key: "x", Effect: corev1alpha1.TaintEffectPreferNoSchedule}

func TestCordon(t *testing.T) {
	client := fake.NewSimpleClientset(cordonSeed("a", nil, otherTaint), cordonSeed("b", nil, CordonTaint))
	out, err := runCordon(t, NewCordonCommand, client, "a", "b")
	if err != nil {
		t.Fatal(err)
	}
	if want := "seed/a cordoned\nseed/b already cordoned\n"; out != want {
		t.Errorf("output %q, want %q", out, want)
	}
	if got := cmdtest.SeedTaints(t, client, "a"); got != "x:PreferNoSchedule,seed.gardener.cloud/unschedulable:NoSchedule" {
		t.Errorf("seed a taints %s", got)
	}
	patchesSent := 0
	for _, a := range client.Actions() {
		if a.GetVerb() == "patch" {
			patchesSent++
		}
	}
	if patchesSent != 1 {
		t.Errorf("%d patches, want 1: an already cordoned seed is not written", patchesSent)
	}
}

func TestCordonSelectorAndDryRun(t *testing.T) {
	client := fake.NewSimpleClientset(cordonSeed("a", map[string]string{"zone": "eu"}), cordonSeed("b", map[string]string{"zone": "us"}))
	out, err := runCordon(t, NewCordonCommand, client, "-l", "zone=eu", "--dry-run=client")
	if err != nil {
		t.Fatal(err)
	}
	if want := "seed/a cordoned (dry run)\n"; out != want {
		t.Errorf("output %q, want %q", out, want)
	}
	if got := cmdtest.SeedTaints(t, client, "a"); got != "<none>" {
		t.Errorf("client dry run changed seed a: %s", got)
	}
}

func TestUncordonRemovesBothVariants(t *testing.T) {
	client := fake.NewSimpleClientset(cordonSeed("a", nil, CordonTaint, otherTaint, DrainTaint), cordonSeed("b", nil, otherTaint))
	out, err := runCordon(t, NewUncordonCommand, client, "a", "b")
	if err != nil {
		t.Fatal(err)
	}
	if want := "seed/a uncordoned\nseed/b already uncordoned\n"; out != want {
		t.Errorf("output %q, want %q", out, want)
	}
	if got := cmdtest.SeedTaints(t, client, "a"); got != "x:PreferNoSchedule" {
		t.Errorf("seed a taints %s", got)
	}
}

func TestCordonErrors(t *testing.T) {
	client := fake.NewSimpleClientset(cordonSeed("a", nil))
	if _, err := runCordon(t, NewCordonCommand, client); err == nil || err.Error() != "at least one seed name must be specified since neither --all nor --selector is set" {
		t.Errorf("no name: %v", err)
	}
	if _, err := runCordon(t, NewCordonCommand, client, "missing"); err == nil || err.Error() != `seeds.core.graft.dev "missing" not found` {
		t.Errorf("missing seed: %v", err)
	}
	if _, err := runCordon(t, NewCordonCommand, client, "a", "-o", "xml"); err == nil {
		t.Errorf("unknown output format accepted")
	}
}

func TestDrained(t *testing.T) {
	got, changed, _ := DrainedAt([]corev1alpha1.SeedTaint{otherTaint}, time.Now())
	if !changed || helper.FormatTaints(got, ",") != "x:PreferNoSchedule,seed.gardener.cloud/unschedulable:NoSchedule,seed.gardener.cloud/unschedulable:NoExecute" {
		t.Errorf("Drained = %s, %v", helper.FormatTaints(got, ","), changed)
	}
	if _, changed, _ := DrainedAt(got, time.Now()); changed {
		t.Errorf("draining a drained seed changed it")
	}
}

// The drain taint records when it was added; the cordon taint records no
// time; draining a drained seed keeps the drain taint's time.
func TestDrainedAtRecordsTimeAdded(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	got, _, _ := DrainedAt([]corev1alpha1.SeedTaint{otherTaint}, t0.Add(400*time.Millisecond))
	for _, taint := range got {
		switch {
		case taint.Effect == corev1alpha1.TaintEffectNoExecute:
			if taint.TimeAdded == nil || !taint.TimeAdded.Time.Equal(t0) {
				t.Errorf("drain taint timeAdded = %v, want %v", taint.TimeAdded, t0)
			}
		case taint.TimeAdded != nil:
			t.Errorf("%s: timeAdded = %v, want none", helper.FormatTaint(taint), taint.TimeAdded)
		}
	}
	again, changed, _ := DrainedAt(got, t0.Add(time.Hour))
	if changed || again[2].TimeAdded == nil || !again[2].TimeAdded.Time.Equal(t0) {
		t.Errorf("draining again: changed %v, timeAdded %v, want unchanged %v", changed, again[2].TimeAdded, t0)
	}
}
