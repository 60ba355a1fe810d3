//go:build integration

package graftctl

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"

	"github.com/graft-dev/graft/test/framework"
	"github.com/graft-dev/graft/test/integration/descheduler/fixture"
)

// startScheduler runs a leader-elected graft-scheduler in-process until the
// test ends.
func startScheduler(t *testing.T, lease string) {
	t.Helper()
	c, err := fixture.StartScheduler(context.Background(), envConfig(t), lease, func(cfg *configv1alpha1.SchedulerConfiguration) {
		cfg.LeaderElection.LeaderElect = ptr.To(true)
		cfg.LeaderElection.LeaseDuration = metav1.Duration{Duration: 3 * time.Second}
		cfg.LeaderElection.RenewDeadline = metav1.Duration{Duration: 2 * time.Second}
		cfg.LeaderElection.RetryPeriod = metav1.Duration{Duration: 500 * time.Millisecond}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Errorf("scheduler: %v", err)
		}
	})
}

// startDescheduler runs graft-descheduler in-process until the test ends and
// waits until it holds its Lease.
func startDescheduler(t *testing.T, lease string) {
	t.Helper()
	cfg, err := fixture.DeschedulerConfig(lease, func(c *configv1alpha1.DeschedulerConfiguration) {
		c.Interval = &metav1.Duration{Duration: 2 * time.Second}
	})
	if err != nil {
		t.Fatal(err)
	}
	c := fixture.StartDescheduler(context.Background(), envConfig(t), cfg, "graftctl-test")
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Errorf("descheduler: %v", err)
		}
	})
	framework.WaitFor(t, "the descheduler's Lease", 30*time.Second, func(ctx context.Context) (bool, error) {
		l, err := framework.Shared(t).KubeClient().CoordinationV1().Leases(corev1alpha1.GardenNamespace).Get(ctx, lease, metav1.GetOptions{})
		return err == nil && l.Spec.HolderIdentity != nil && *l.Spec.HolderIdentity != "", err
	})
}

func createShoots(t *testing.T, l *fixture.Landscape, seedShort string, n int, opts ...func(*corev1alpha1.Shoot)) []*corev1alpha1.Shoot {
	t.Helper()
	var shoots []*corev1alpha1.Shoot
	for i := range n {
		s := l.NewShoot(fmt.Sprintf("s-%02d", i), seedShort)
		for _, o := range opts {
			o(s)
		}
		shoots = append(shoots, s)
	}
	if err := l.CreateShoots(t.Context(), shoots, 4); err != nil {
		t.Fatal(err)
	}
	return shoots
}

func TestDrainWithDeschedulerAndScheduler(t *testing.T) {
	l := newLandscape(t, "gctl-drain", "a", "b", "c")
	a := l.SeedName("a")
	const n = 12
	createShoots(t, l, "a", n)
	tolerant := l.NewShoot("tolerant", "a")
	tolerant.Spec.Tolerations = []corev1alpha1.Toleration{{Key: corev1alpha1.SeedTaintUnschedulable}}
	if err := l.CreateShoots(t.Context(), []*corev1alpha1.Shoot{tolerant}, 1); err != nil {
		t.Fatal(err)
	}
	startScheduler(t, "gctl-drain-scheduler")
	startDescheduler(t, "gctl-drain-descheduler")

	out := run(t, "drain", a, "--timeout=3m",
		"--descheduler-lease-name=gctl-drain-descheduler", "--descheduler-lease-namespace=garden")
	t.Logf("graftctl drain printed:\n%s", out)

	for _, line := range []string{
		"seed/" + a + " cordoned\n",
		"seed/" + a + " marked for eviction (seed.gardener.cloud/unschedulable:NoExecute)\n",
		"shoot/gctl-drain/tolerant tolerates seed.gardener.cloud/unschedulable:NoExecute and stays\n",
		fmt.Sprintf("%d shoot(s) to move off seed/%s\n", n, a),
		fmt.Sprintf("%d/%d shoots moved\n", n, n),
	} {
		if !strings.Contains(out, line) {
			t.Errorf("output lacks %q", line)
		}
	}
	if !strings.HasSuffix(out, "seed/"+a+" drained\n") {
		t.Errorf("output does not end with the drained line")
	}
	moves := regexp.MustCompile(`(?m)^shoot/gctl-drain/s-\d\d moved to seed/gctl-drain-[bc]$`).FindAllString(out, -1)
	if len(moves) != n {
		t.Errorf("%d move lines, want %d", len(moves), n)
	}
	if !regexp.MustCompile(`(?m)^\d+/12 shoots moved$`).MatchString(out) {
		t.Errorf("no progress line")
	}

	shoots, err := l.Shoots(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range shoots {
		seed := ptr.Deref(s.Spec.SeedName, "")
		switch {
		case s.Name == "tolerant" && seed != a:
			t.Errorf("the tolerant shoot moved to %q", seed)
		case s.Name != "tolerant" && (seed == a || seed == ""):
			t.Errorf("shoot %s is on %q after the drain", s.Name, seed)
		}
	}

	// uncordon lifts both taints.
	if out := run(t, "uncordon", a); out != "seed/"+a+" uncordoned\n" {
		t.Errorf("uncordon: %q", out)
	}
	if got := liveTaints(t, l, "a"); got != "<none>" {
		t.Errorf("taints after uncordon: %s", got)
	}
}

func TestDrainWithoutDeschedulerSaysSo(t *testing.T) {
	l := newLandscape(t, "gctl-nodesched", "a", "b")
	a := l.SeedName("a")
	createShoots(t, l, "a", 2)

	r := fail(t, "drain", a, "--descheduler-lease-name=gctl-nodesched-missing")
	want := "error: graft-descheduler is not running: its leader-election Lease garden/gctl-nodesched-missing does not exist"
	if !strings.HasPrefix(r.errOut, want) {
		t.Errorf("stderr %q, want prefix %q", r.errOut, want)
	}

	// A Lease nobody renews any more.
	kube := framework.Shared(t).KubeClient()
	stale := &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Namespace: corev1alpha1.GardenNamespace, Name: "gctl-nodesched-stale"},
		Spec: coordinationv1.LeaseSpec{
			HolderIdentity:       ptr.To("descheduler-0"),
			LeaseDurationSeconds: ptr.To[int32](15),
			RenewTime:            &metav1.MicroTime{Time: time.Now().Add(-10 * time.Minute)},
		},
	}
	if _, err := kube.CoordinationV1().Leases(stale.Namespace).Create(t.Context(), stale, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = kube.CoordinationV1().Leases(stale.Namespace).Delete(context.Background(), stale.Name, metav1.DeleteOptions{})
	})
	r = fail(t, "drain", a, "--descheduler-lease-name=gctl-nodesched-stale")
	want = "error: graft-descheduler is not running: its leader-election Lease garden/gctl-nodesched-stale, held by descheduler-0, expired "
	if !strings.HasPrefix(r.errOut, want) {
		t.Errorf("stderr %q, want prefix %q", r.errOut, want)
	}
}

func TestDrainTimeoutListsShootsLeft(t *testing.T) {
	l := newLandscape(t, "gctl-timeout", "a", "b")
	a := l.SeedName("a")
	createShoots(t, l, "a", 2)
	// A live Lease, but no descheduler acting on it: nothing moves.
	kube := framework.Shared(t).KubeClient()
	live := &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Namespace: corev1alpha1.GardenNamespace, Name: "gctl-timeout-live"},
		Spec: coordinationv1.LeaseSpec{
			HolderIdentity:       ptr.To("descheduler-0"),
			LeaseDurationSeconds: ptr.To[int32](3600),
			RenewTime:            &metav1.MicroTime{Time: time.Now()},
		},
	}
	if _, err := kube.CoordinationV1().Leases(live.Namespace).Create(t.Context(), live, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = kube.CoordinationV1().Leases(live.Namespace).Delete(context.Background(), live.Name, metav1.DeleteOptions{})
	})
	r := fail(t, "drain", a, "--timeout=2s", "--descheduler-lease-name=gctl-timeout-live")
	// No graft-scheduler runs here: the reasons are given with the default
	// scheduling configuration, and graftctl warns so; the Lease holds no
	// published descheduler configuration, and the plan says it assumes the
	// defaults.
	if want := "Warning: explaining with the default scheduling configuration, which may not be graft-scheduler's: " +
		`the scheduler's Lease garden/graft-scheduler could not be read: leases.coordination.k8s.io "graft-scheduler" not found` + "\n" +
		"Warning: graft-descheduler publishes no configuration on Lease garden/gctl-timeout-live (an older version, or leader election off): the plan assumes its defaults\n" +
		"error: timed out after 2s waiting for seed " + a + " to drain: 0/2 shoots moved, 2 left\n"; r.errOut != want {
		t.Errorf("stderr %q, want %q", r.errOut, want)
	}
	// What the drain plan says: the first at once, the second once the
	// first landed (one move of a project in flight by default).
	for _, line := range []string{
		"shoot/gctl-timeout/s-00 left: graft-descheduler moves it now, to seed/" + l.SeedName("b") + ": urgent: seed " + a + " has NoExecute taint",
		"shoot/gctl-timeout/s-01 left: graft-descheduler moves it at ",
		"to seed/" + l.SeedName("b") + ": project namespace gctl-timeout has its budget of 1 moves in flight\n",
	} {
		if !strings.Contains(r.out, line) {
			t.Errorf("stdout lacks %q:\n%s", line, r.out)
		}
	}
}

func TestDrainDryRunShowsPlacements(t *testing.T) {
	l := newLandscape(t, "gctl-drainplan", "a")
	if _, err := l.Seed(t.Context(), "b", 1); err != nil {
		t.Fatal(err)
	}
	a := l.SeedName("a")
	createShoots(t, l, "a", 2)
	out := run(t, "drain", a, "--dry-run")
	for _, line := range []string{
		"seed/" + a + " cordoned (dry run)\n",
		"shoot/gctl-drainplan/s-00 would move to seed/gctl-drainplan-b\n",
		"shoot/gctl-drainplan/s-01 cannot move: ",
		"2 shoot(s) on seed/" + a + ": 1 would move, 1 cannot move, 0 stay (dry run)\n",
	} {
		if !strings.Contains(out, line) {
			t.Errorf("output lacks %q:\n%s", line, out)
		}
	}
	if got := liveTaints(t, l, "a"); got != "<none>" {
		t.Errorf("dry run changed the seed: %s", got)
	}
}
