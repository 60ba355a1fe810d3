package drain

import (
	"bytes"
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	kubefake "k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/graft-dev/client-go/clientset/versioned/fake"
	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"

	"github.com/graft-dev/graft/pkg/coretest"
	"github.com/graft-dev/graft/pkg/garden"
	"github.com/graft-dev/graft/pkg/graftctl/cmdtest"
	"github.com/graft-dev/graft/pkg/graftctl/seedcmd"
)

// TestDrainInWindows: the drain records its deadline before it adds the
// drain taint (graft-descheduler must never see a drain in windows as a
// plain one), prints the plan graft-descheduler's passes make (the shoot
// without a window now, each other in its window, hibernated first, the
// second of the window once the first landed since the project's budget is
// one move in flight, the shoot whose window comes after the deadline at the
// deadline, the tolerating one staying), and uncordon removes the deadline
// after the taints.
func TestDrainInWindows(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	graft := fake.NewSimpleClientset(
		coretest.MakeCloudProfile("aws").Regions("eu-west-1").Obj(),
		coretest.MakeSeed("a").Obj(), coretest.MakeSeed("b").Obj(),
		coretest.MakeShoot("ns", "evening").Seed("a").MaintenanceWindow("180000+0000", "190000+0000").Obj(),
		coretest.MakeShoot("ns", "late").Seed("a").MaintenanceWindow("100000+0000", "110000+0000").Obj(),
		coretest.MakeShoot("ns", "sleeping").Seed("a").MaintenanceWindow("180000+0000", "190000+0000").Hibernated().Obj(),
		coretest.MakeShoot("ns", "anytime").Seed("a").Obj(),
		coretest.MakeShoot("ns", "tolerant").Seed("a").Tolerations(tolerateDrain).Obj(),
	)
	out := drainInWindows(t, graft, now, seedcmd.DryRunNone)
	cmdtest.Contains(t, out,
		"seed/a drained in maintenance windows until 2026-11-30T08:00:00Z\n",
		"seed/a cordoned\n",
		"SHOOT        DESTINATION  WHEN                  HOW    WHY\n"+
			"ns/anytime   b            now                   evict  the shoot names no maintenance window\n"+
			"ns/sleeping  b            2026-11-29T18:00:00Z  evict  waits for its maintenance window (18:00:00-19:00:00 UTC)\n"+
			"ns/evening   b            2026-11-29T18:00:01Z  evict  project namespace ns has its budget of 1 moves in flight\n"+
			"ns/late      b            2026-11-30T08:00:00Z  evict  its deadline 2026-11-30T08:00:00Z comes before its next maintenance window (10:00:00-11:00:00 UTC)\n"+
			"ns/tolerant  -            -                     stays  tolerates the seed's NoExecute taints\n",
		"5 shoot(s): 1 move now, 3 later, 0 cannot move, 1 stay on seed/a\n",
	)
	// The writes: the deadline, then the taints.
	var patches []string
	for _, a := range graft.Actions() {
		if p, ok := a.(k8stesting.PatchAction); ok && a.GetResource().Resource == "seeds" {
			patches = append(patches, string(p.GetPatch()))
		}
	}
	if len(patches) != 2 || !bytes.Contains([]byte(patches[0]), []byte(corev1alpha1.AnnotationDrainDeadline)) || !bytes.Contains([]byte(patches[1]), []byte("taints")) {
		t.Fatalf("seed patches %q, want the deadline and then the taints", patches)
	}
	seed, _ := graft.CoreV1alpha1().Seeds().Get(context.Background(), "a", metav1.GetOptions{})
	if got := helper.FormatTaints(seed.Spec.Taints, ","); got != "seed.gardener.cloud/unschedulable:NoSchedule,seed.gardener.cloud/unschedulable:NoExecute" {
		t.Errorf("taints %s", got)
	}

	// Uncordon: the taints go first, then the deadline.
	graft.ClearActions()
	if _, err := Set(context.Background(), garden.NewGraft(graft), "a", false, seedcmd.DryRunNone); err != nil {
		t.Fatal(err)
	}
	patches = nil
	for _, a := range graft.Actions() {
		if p, ok := a.(k8stesting.PatchAction); ok {
			patches = append(patches, string(p.GetPatch()))
		}
	}
	if len(patches) != 2 || !bytes.Contains([]byte(patches[0]), []byte("taints")) || !bytes.Contains([]byte(patches[1]), []byte(corev1alpha1.AnnotationDrainDeadline+`":null`)) {
		t.Fatalf("uncordon patches %q, want the taints and then the deadline removed", patches)
	}
}

// drainInWindows drains seed a in maintenance windows with a deadline of
// 20h and the plan, and returns what it printed.
func drainInWindows(t *testing.T, graft *fake.Clientset, now time.Time, dryRun seedcmd.DryRunStrategy) string {
	t.Helper()
	var out bytes.Buffer
	o := &Options{
		SeedName: "a", InMaintenanceWindows: true, Deadline: 20 * time.Hour, Plan: true, DryRun: dryRun, LeaseCheckInterval: time.Second, MigrationBurst: 1,
		Garden: garden.NewGraft(graft), Kube: kubefake.NewSimpleClientset(), Clock: clocktesting.NewFakeClock(now),
		IOStreams: genericiooptions.IOStreams{Out: &out, ErrOut: &bytes.Buffer{}},
	}
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := o.Run(context.Background()); err != nil {
		t.Fatalf("drain: %v\n%s", err, out.String())
	}
	return out.String()
}

func TestDrainInWindowsFlags(t *testing.T) {
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{InMaintenanceWindows: true}, "--in-maintenance-windows needs --deadline"},
		{Options{Deadline: time.Hour}, "--deadline bounds a drain in maintenance windows"},
		{Options{InMaintenanceWindows: true, Deadline: -time.Hour}, "--deadline must not be negative"},
	} {
		o := tc.o
		o.LeaseCheckInterval, o.MigrationBurst = time.Second, 1
		if err := o.Validate(); err == nil || !bytes.Contains([]byte(err.Error()), []byte(tc.want)) {
			t.Errorf("%+v: error %v, want %q", tc.o, err, tc.want)
		}
	}
}

// TestProgressFollowsMigrations: on Gardener a shoot counts as moved once
// its control plane runs on the new seed, not at its binding.
func TestProgressFollowsMigrations(t *testing.T) {
	seed := coretest.MakeSeed("a").Taints(DrainTaint).Obj()
	shoot := coretest.MakeShoot("ns", "s").Seed("a").StatusSeed("a").Obj()
	p := newProgress(seed, time.Now())
	p.moves = garden.Gardener.Moves()
	p.observe(shoot)
	bound := shoot.DeepCopy()
	bound.Spec.SeedName = ptrTo("b")
	if line := p.update("ns/s", bound); line != "shoot/ns/s migrating to seed/b\n" || len(p.left()) != 1 || p.moved != 0 {
		t.Fatalf("at the binding: %q, left %v, moved %d", line, p.left(), p.moved)
	}
	done := bound.DeepCopy()
	done.Status.SeedName = ptrTo("b")
	if line := p.update("ns/s", done); line != "shoot/ns/s moved to seed/b\n" || len(p.left()) != 0 || p.moved != 1 {
		t.Fatalf("once it runs there: %q, left %v, moved %d", line, p.left(), p.moved)
	}
}

func ptrTo(s string) *string { return &s }

// TestDrainPlanHoldsFailedShoots: the plan times a failed shoot as
// graft-descheduler does: held until the deadline, by when the healthy
// shoot took the only free slot, so it is shown held with no room left.
func TestDrainPlanHoldsFailedShoots(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	graft := fake.NewSimpleClientset(
		coretest.MakeCloudProfile("aws").Regions("eu-west-1").Obj(),
		coretest.MakeSeed("a").Obj(), coretest.MakeSeed("b").Allocatable(1).Obj(),
		coretest.MakeShoot("ns", "a-failed").Seed("a").LastOperation(corev1alpha1.LastOperationTypeReconcile, corev1alpha1.LastOperationStateFailed, "credentials invalid").Obj(),
		coretest.MakeShoot("ns", "b-healthy").Seed("a").Obj(),
	)
	cmdtest.Contains(t, drainInWindows(t, graft, now, seedcmd.DryRunClient),
		"ns/b-healthy  b            now   evict  the shoot names no maintenance window\n",
		"ns/a-failed   <none>       -     evict  no other seed fits",
		"2 shoot(s): 1 move now, 0 later, 1 cannot move, 0 stay on seed/a",
	)
}
