//go:build integration

package descheduler

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/utils/ptr"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/graftctl/get"
	"github.com/graft-dev/graft/test/integration/descheduler/fixture"
)

// histories formats the placements the recorder saw for the named shoots.
func (r *recorder) histories(names []string) string {
	var out []string
	for _, n := range names {
		out = append(out, n+": ["+strings.Join(r.seeds(n), ",")+"]")
	}
	return strings.Join(out, "; ")
}

// TestDrainTwoSeedsMovesEachShootOnce drains two seeds whose NoExecute taint
// the shoots tolerate for a few seconds while a third, busier seed is clean.
// Both taints are written before the scheduler starts: it decides only after
// its informers have listed, so it knows both drains before any eviction,
// however slow the machine.
// Every shoot must move exactly once, to the clean seed: an evicted shoot
// placed on the other drained seed (less used, so chosen by usage alone)
// would be evicted again there and bounce between the two.
func TestDrainTwoSeedsMovesEachShootOnce(t *testing.T) {
	ctx, env, l := setup(t, "pingpong")
	for _, s := range []string{"a", "b", "c"} {
		must[*v1alpha1.Seed](t)(l.Seed(ctx, s, -1))
	}
	var shoots, moving []*v1alpha1.Shoot
	for _, from := range []string{"a", "b"} {
		for i := range 3 {
			s := l.NewShoot(fmt.Sprintf("%s-%d", from, i), from)
			s.Spec.Tolerations = []v1alpha1.Toleration{{Key: v1alpha1.SeedTaintUnschedulable, Effect: v1alpha1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](5)}}
			moving = append(moving, s)
		}
	}
	shoots = append(shoots, moving...)
	// Seed c always counts more shoots than a or b can, so only the rule
	// for evicted shoots keeps them off the other drained seed.
	for i := range 8 {
		shoots = append(shoots, l.NewShoot(fmt.Sprintf("c-%d", i), "c"))
	}
	if err := l.CreateShoots(ctx, shoots, 4); err != nil {
		t.Fatal(err)
	}
	rec := record(t, ctx, l)
	for _, s := range []string{"a", "b"} {
		if err := l.SetTaints(ctx, s, drainTaint); err != nil {
			t.Fatal(err)
		}
	}
	startScheduler(t, ctx, env, "pingpong-scheduler")
	d := startDescheduler(t, ctx, env, "pingpong-descheduler", "d1", fast)
	eventually(t, ctx, 30*time.Second, "descheduler ready", func() (bool, error) { return d.Descheduler.Ready(), nil })

	var names []string
	for _, s := range moving {
		names = append(names, s.Name)
	}
	c := l.SeedName("c")
	// The recorder sees every change of spec.seedName from its watch, in
	// order; a second eviction of any shoot ends the wait at once.
	eventually(t, ctx, 2*time.Minute, "every shoot of the drained seeds on seed c", func() (bool, error) {
		done := true
		for _, n := range names {
			h := rec.seeds(n)
			if len(h) > 3 {
				return false, fmt.Errorf("shoot %s moved more than once: %s", n, rec.histories(names))
			}
			done = done && h[len(h)-1] == c
		}
		return done, nil
	})
	// Seed c has no taint: nothing moves the shoots any more, so the
	// histories are complete.
	for _, s := range moving {
		from := *s.Spec.SeedName
		if got, want := strings.Join(rec.seeds(s.Name), ","), from+",,"+c; got != want {
			t.Errorf("placements of %s: %q, want %q (one eviction, one binding)", s.Name, got, want)
		}
	}
	// Generations count every spec change: created, evicted, bound.
	for name, s := range shootsByName(t, ctx, l) {
		want := int64(1)
		if !strings.HasPrefix(name, "c-") {
			want = 3
		}
		if s.Generation != want {
			t.Errorf("shoot %s has generation %d, want %d", name, s.Generation, want)
		}
	}
}

// TestReplacedShootIsNotPending: an evicted shoot placed again no longer
// reads Pending, and no Pending lastOperation is left behind by the eviction
// (which writes no status) or the binding.
func TestReplacedShootIsNotPending(t *testing.T) {
	ctx, env, l := setup(t, "notpending")
	must[*v1alpha1.Seed](t)(l.Seed(ctx, "a", -1))
	must[*v1alpha1.Seed](t)(l.Seed(ctx, "b", -1))
	var shoots []*v1alpha1.Shoot
	for i := range 4 {
		shoots = append(shoots, l.NewShoot(fmt.Sprintf("s-%d", i), "a"))
	}
	if err := l.CreateShoots(ctx, shoots, 4); err != nil {
		t.Fatal(err)
	}
	rec := record(t, ctx, l)
	startScheduler(t, ctx, env, "notpending-scheduler")
	d := startDescheduler(t, ctx, env, "notpending-descheduler", "d1", fast)
	eventually(t, ctx, 30*time.Second, "descheduler ready", func() (bool, error) { return d.Descheduler.Ready(), nil })
	if err := l.SetTaints(ctx, "a", drainTaint); err != nil {
		t.Fatal(err)
	}
	b := l.SeedName("b")
	// The shoot's Descheduled Event is emitted after the descheduler's
	// update: once it is there and the shoot is bound, neither component
	// writes the shoot any more.
	eventually(t, ctx, time.Minute, "every shoot evicted, placed on seed b and not Pending", func() (bool, error) {
		events, err := descheduledEvents(ctx, l)
		if err != nil {
			return false, err
		}
		announced := map[string]bool{}
		for _, e := range events {
			announced[e.InvolvedObject.Name] = true
		}
		for _, s := range shootsByName(t, ctx, l) {
			if !announced[s.Name] || fixture.Of(&s) != b || get.ShootStatus(&s) == string(v1alpha1.LastOperationStatePending) {
				return false, nil
			}
		}
		return true, nil
	})
	for name, s := range shootsByName(t, ctx, l) {
		if op := s.Status.LastOperation; op != nil {
			t.Errorf("shoot %s keeps lastOperation %s/%s %q after it was placed again", name, op.Type, op.State, op.Description)
		}
		if got, want := strings.Join(rec.seeds(name), ","), l.SeedName("a")+",,"+b; got != want {
			t.Errorf("placements of %s: %q, want %q", name, got, want)
		}
	}
}
