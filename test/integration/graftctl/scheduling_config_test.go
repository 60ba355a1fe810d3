//go:build integration

package graftctl

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/schedulingconfig"

	"github.com/graft-dev/graft/test/framework"
	"github.com/graft-dev/graft/test/integration/descheduler/fixture"
)

// TestDescribeAndDrainDryRunExplainTheSchedulersDecision runs graft-scheduler
// with score weights that change its decision: in the reference order a
// shoot goes to the seed with the fewest shoots (b, 1 of 2), with
// LeastAllocated scoring to the one with the most room (a, 2 of 100).
// graftctl describe and drain --dry-run must name the seed the scheduler
// then chooses, from the configuration it publishes on its Lease, and name
// the other one when flags override it with the defaults.
func TestDescribeAndDrainDryRunExplainTheSchedulersDecision(t *testing.T) {
	ctx := t.Context()
	l := newLandscape(t, "gctl-weights")
	// z (1 of 3) scores 66 and ties with b in the reference order, which b
	// wins by name: it is never the answer for a new shoot.
	for short, allocatable := range map[string]int64{"a": 100, "b": 2, "z": 3} {
		if _, err := l.Seed(ctx, short, allocatable); err != nil {
			t.Fatal(err)
		}
	}
	a, b, z := l.SeedName("a"), l.SeedName("b"), l.SeedName("z")
	if err := l.CreateShoots(ctx, []*corev1alpha1.Shoot{l.NewShoot("on-a-1", "a"), l.NewShoot("on-a-2", "a"), l.NewShoot("on-b", "b"), l.NewShoot("moving", "z")}, 4); err != nil {
		t.Fatal(err)
	}

	const lease = "gctl-weights-scheduler"
	weights := &configv1alpha1.ScoreWeights{LeastAllocated: ptr.To[int32](1)}
	weighted := func(c *configv1alpha1.SchedulerConfiguration) {
		c.LeaderElection.LeaderElect = ptr.To(true)
		c.ScoreWeights = weights
	}
	sched, err := fixture.StartScheduler(context.Background(), envConfig(t), lease, weighted)
	if err != nil {
		t.Fatal(err)
	}
	leases := framework.Shared(t).KubeClient().CoordinationV1().Leases(corev1alpha1.GardenNamespace)
	framework.WaitFor(t, "the scheduler to publish its configuration on its Lease", time.Minute, func(ctx context.Context) (bool, error) {
		got, err := leases.Get(ctx, lease, metav1.GetOptions{})
		return err == nil && got.Annotations[schedulingconfig.Annotation] != "", err
	})
	published, _ := leases.Get(ctx, lease, metav1.GetOptions{})
	if got, want := published.Annotations[schedulingconfig.Annotation],
		`{"version":"v1","schedulerName":"default-scheduler","strategy":"SameRegion","scoreWeights":{"LeastAllocated":1},"regionConfigNamespace":"garden"}`; got != want {
		t.Errorf("published %s, want %s", got, want)
	}
	// Stopped, the scheduler releases its Lease; the configuration stays.
	if err := sched.Stop(); err != nil {
		t.Fatal(err)
	}

	// A pending shoot: describe explains what the scheduler will decide.
	if err := l.CreateShoots(ctx, []*corev1alpha1.Shoot{l.NewShoot("new", "")}, 1); err != nil {
		t.Fatal(err)
	}
	leaseFlag := "--scheduler-lease-name=" + lease
	fromLease := "Scheduling configuration: SameRegion, score weights LeastAllocated=1 (from Lease garden/" + lease + ")\n"
	fromFlags := "Scheduling configuration: SameRegion, no score weights (from flags)\n"
	describe := run(t, "describe", "shoot", "new", "-n", l.Name, leaseFlag)
	overridden := run(t, "describe", "shoot", "new", "-n", l.Name, leaseFlag, "--strategy=SameRegion")
	for _, c := range []struct{ out, line, seed string }{{describe, fromLease, a}, {overridden, fromFlags, b}} {
		for _, want := range []string{"  " + c.line, "(strategy SameRegion): scheduled to seed " + c.seed + "\n"} {
			if !strings.Contains(c.out, want) {
				t.Errorf("describe lacks %q:\n%s", want, c.out)
			}
		}
	}

	// The scheduler, back, binds the shoot where describe said.
	sched, err = fixture.StartScheduler(context.Background(), envConfig(t), lease, weighted)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := sched.Stop(); err != nil {
			t.Errorf("scheduler: %v", err)
		}
	})
	var bound string
	framework.WaitFor(t, "the scheduler to bind shoot new", time.Minute, func(ctx context.Context) (bool, error) {
		s, err := l.Graft.CoreV1alpha1().Shoots(l.Name).Get(ctx, "new", metav1.GetOptions{})
		if err == nil && s.Spec.SeedName != nil {
			bound = *s.Spec.SeedName
		}
		return bound != "", err
	})
	if bound != a {
		t.Fatalf("the scheduler bound shoot new to %s, describe said %s", bound, a)
	}

	// drain --dry-run says where the shoot on z goes; the drain moves it there.
	dryRun := run(t, "drain", z, "--dry-run", leaseFlag)
	overridden = run(t, "drain", z, "--dry-run", leaseFlag, "--strategy=SameRegion")
	for _, c := range []struct{ out, line, seed string }{{dryRun, fromLease, a}, {overridden, fromFlags, b}} {
		for _, want := range []string{c.line, "shoot/" + l.Name + "/moving would move to seed/" + c.seed + "\n"} {
			if !strings.Contains(c.out, want) {
				t.Errorf("drain --dry-run lacks %q:\n%s", want, c.out)
			}
		}
	}
	const deschedulerLease = "gctl-weights-descheduler"
	// requireFit asks the algorithm with the weights the scheduler publishes:
	// the descheduler sets none of its own.
	cfg, err := fixture.DeschedulerConfig(deschedulerLease, func(c *configv1alpha1.DeschedulerConfiguration) {
		c.Interval = &metav1.Duration{Duration: 2 * time.Second}
		c.SchedulerLease.Name = lease
		c.Strategy, c.ScoreWeights, c.RegionConfigNamespace = "", nil, ""
	})
	if err != nil {
		t.Fatal(err)
	}
	desched := fixture.StartDescheduler(context.Background(), envConfig(t), cfg, "graftctl-weights-test")
	t.Cleanup(func() {
		if err := desched.Stop(); err != nil {
			t.Errorf("descheduler: %v", err)
		}
	})
	if desched.Descheduler == nil {
		t.Fatalf("the descheduler did not start: %v", desched.Stop())
	}
	if got := schedulingconfig.Describe(desched.Descheduler.SchedulingConfiguration()); got != "SameRegion, score weights LeastAllocated=1" {
		t.Errorf("the descheduler's requireFit asks with %s, want the scheduler's published SameRegion, score weights LeastAllocated=1", got)
	}
	run(t, "drain", z, "--timeout=2m", "--descheduler-lease-name="+deschedulerLease, leaseFlag)
	moved, err := l.Graft.CoreV1alpha1().Shoots(l.Name).Get(ctx, "moving", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := ptr.Deref(moved.Spec.SeedName, ""); got != a {
		t.Errorf("the drain moved shoot moving to %q, drain --dry-run said %s", got, a)
	}
}
