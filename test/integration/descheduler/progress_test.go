//go:build integration

package descheduler

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/utils/ptr"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/test/integration/descheduler/fixture"
)

// runOutLandscape is the case of an eviction loop seen in a fault run: three
// seeds carry a NoExecute taint that the shoots tolerate with
// tolerationSeconds 0 ("leave at once"), and the seed the shoots are on is
// then drained. It returns the names of the shoots: three on seed d and one
// new shoot without a seed.
func runOutLandscape(t *testing.T, ctx context.Context, l *fixture.Landscape) []string {
	t.Helper()
	maintenance := v1alpha1.SeedTaint{Key: "graft.dev/maintenance", Effect: v1alpha1.TaintEffectNoExecute}
	for _, s := range []string{"a", "b", "c"} {
		must[*v1alpha1.Seed](t)(l.Seed(ctx, s, -1, maintenance))
	}
	must[*v1alpha1.Seed](t)(l.Seed(ctx, "d", -1))
	zero := []v1alpha1.Toleration{{Key: maintenance.Key, Effect: v1alpha1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](0)}}
	var shoots []*v1alpha1.Shoot
	var names []string
	for i := range 3 {
		s := l.NewShoot(fmt.Sprintf("on-d-%d", i), "d")
		s.Spec.Tolerations = zero
		shoots = append(shoots, s)
	}
	fresh := l.NewShoot("new", "")
	fresh.Spec.Tolerations = zero
	shoots = append(shoots, fresh)
	for _, s := range shoots {
		names = append(names, s.Name)
	}
	if err := l.CreateShoots(ctx, shoots, 4); err != nil {
		t.Fatal(err)
	}
	return names
}

// TestRunOutStaysMakeNoLoop: with scheduler and descheduler running and
// requireFit off (the descheduler evicts whatever the taint says), every
// shoot of the drained seed is evicted once and then placed nowhere: the
// seeds whose taint it tolerates for 0 s are no candidates, so the
// scheduler does not bind it to one only for the descheduler to evict it
// at once. Over a minute no shoot is evicted more than once and none is
// bound; the new shoot is never bound either.
func TestRunOutStaysMakeNoLoop(t *testing.T) {
	ctx, env, l := setup(t, "runout")
	names := runOutLandscape(t, ctx, l)
	rec := record(t, ctx, l)
	// Drained before the components start: the new shoot must not be
	// placed on seed d before the drain.
	if err := l.SetTaints(ctx, "d", drainTaint); err != nil {
		t.Fatal(err)
	}
	startScheduler(t, ctx, env, "runout-scheduler")
	startDescheduler(t, ctx, env, "runout-descheduler", "d1", func(c *configv1alpha1.DeschedulerConfiguration) {
		fast(c)
		c.RequireFit = ptr.To(false)
	})
	// check fails as soon as any shoot's placements leave the expected
	// path: from seed d to none (or none from the start), and no further.
	check := func(final bool) error {
		for _, name := range names {
			h := rec.seeds(name)
			want := []string{l.SeedName("d"), ""}
			if name == "new" {
				want = []string{""}
			}
			prefix := len(h) <= len(want) && strings.Join(h, ",") == strings.Join(want[:len(h)], ",")
			if !prefix || (final && len(h) != len(want)) {
				return fmt.Errorf("placements of %s: %q, want %q (evicted at most once, never bound to a seed it must leave at once)", name, h, want)
			}
		}
		return nil
	}
	// The scheduler records, for every shoot without a seed, why none
	// fits: the fact that it has decided on each after the evictions.
	eventually(t, ctx, 2*time.Minute, "every shoot evicted and found no place by the scheduler", func() (bool, error) {
		if err := check(false); err != nil {
			return false, err
		}
		for name, s := range shootsByName(t, ctx, l) {
			op := s.Status.LastOperation
			if fixture.Of(&s) != "" || op == nil || !strings.Contains(op.Description, "it would have to leave as soon as it arrived") {
				return false, nil
			}
			if h := rec.seeds(name); name != "new" && len(h) < 2 {
				return false, nil
			}
		}
		return true, nil
	})
	// A loop showed up as hundreds of moves within seconds; watch a minute.
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		if err := check(true); err != nil {
			t.Fatal(err)
		}
		select {
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		case <-time.After(time.Second):
		}
	}
	if err := check(true); err != nil {
		t.Fatal(err)
	}
}

// TestRunOutStaysAreNoFit: with requireFit on (the default), the shoots of
// the drained seed are not evicted at all: no seed where they may stay
// exists, and each gets an EvictionSkipped Event saying so.
func TestRunOutStaysAreNoFit(t *testing.T) {
	ctx, env, l := setup(t, "runoutfit")
	runOutLandscape(t, ctx, l)
	rec := record(t, ctx, l)
	if err := l.SetTaints(ctx, "d", drainTaint); err != nil {
		t.Fatal(err)
	}
	startScheduler(t, ctx, env, "runoutfit-scheduler")
	startDescheduler(t, ctx, env, "runoutfit-descheduler", "d1", fast)
	eventually(t, ctx, time.Minute, "an EvictionSkipped Event on every shoot of seed d", func() (bool, error) {
		events, err := l.Events(ctx, "EvictionSkipped")
		if err != nil {
			return false, err
		}
		skipped := map[string]bool{}
		for _, e := range events {
			if strings.Contains(e.Message, "NoExecute tolerated under a minute (3)") {
				skipped[e.InvolvedObject.Name] = true
			}
		}
		return len(skipped) == 3, nil
	})
	for name, s := range shootsByName(t, ctx, l) {
		if name == "new" {
			continue
		}
		if fixture.Of(&s) != l.SeedName("d") || len(rec.seeds(name)) != 1 {
			t.Errorf("shoot %s moved (%q) although no seed lets it stay", name, rec.seeds(name))
		}
	}
}
