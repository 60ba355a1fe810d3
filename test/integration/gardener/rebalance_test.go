//go:build gardener

package gardener

import (
	"context"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/graft-dev/graft/pkg/coretest"
	"github.com/graft-dev/graft/test/framework"
)

// seedNameOf reads where a Gardener shoot of the landscape runs: its
// spec.seedName, and whether status.seedName has followed.
func (l *landscape) seedNameOf(t *testing.T, name string) (string, bool) {
	t.Helper()
	s, err := dynamicClient(t).Resource(shoots).Namespace(l.namespace).Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	spec, _, _ := unstructured.NestedString(s.Object, "spec", "seedName")
	status, _, _ := unstructured.NestedString(s.Object, "status", "seedName")
	return spec, spec == status
}

// countOn counts the named shoots whose control plane runs on seed.
func (l *landscape) countOn(t *testing.T, seed string, names []string) int {
	n := 0
	for _, name := range names {
		if on, settled := l.seedNameOf(t, name); on == seed && settled {
			n++
		}
	}
	return n
}

// stepping steps the descheduler's clock by a second on each poll of cond.
func stepping(clk *clocktesting.FakeClock, cond func() bool) func(context.Context) (bool, error) {
	return func(context.Context) (bool, error) {
		clk.Step(time.Second)
		return cond(), nil
	}
}

// TestRebalanceOnGardener: a full seed (7 of 7) and a new, empty one, each
// move a control-plane migration through Gardener's real binding admission
// (a gardenlet stand-in finishes it). Rebalance (85%/60%) migrates the shoot
// whose window is open to the new seed at once, a second one when the others'
// window opens, and no more: the full seed is then at 5 of 7. When the new
// seed turns full and the old one empty, the migrated shoots do not move
// back within the cool-down: no ping-pong.
func TestRebalanceOnGardener(t *testing.T) {
	l := migrationLandscape(t, "rebal", 7, "full", "new")
	full, fresh := l.seeds[0], l.seeds[1]
	start := time.Now().UTC().Truncate(time.Second)
	later := start.Add(2 * time.Hour)
	var names []string
	for i := range 7 {
		at := later
		if i == 0 {
			at = start.Add(-30 * time.Minute)
		}
		name := fmt.Sprintf("s%d", i)
		l.createOn(t, name, full, window(at))
		names = append(names, name)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	g := newGardenletStandIn(time.Second)
	g.start(t, ctx)
	clk := clocktesting.NewFakeClock(start)
	reg := startClockedDescheduler(t, "graft-descheduler-rebalance", clk, "config.interval=1m", "config.evictionRate=0",
		"config.plugins[0].name=Rebalance")

	l.migratedOff(t, "s0", full)
	if on, _ := l.seedNameOf(t, "s0"); on != fresh {
		t.Fatalf("s0 migrated to %s, want %s", on, fresh)
	}
	framework.Never(t, "a shoot to migrate outside its window", 2*time.Second, func() bool {
		clk.Step(time.Second)
		return l.countOn(t, full, names) != 6
	})
	clk.SetTime(later.Add(time.Second))
	framework.WaitFor(t, "a second shoot to migrate in its window", time.Minute, stepping(clk, func() bool {
		return l.countOn(t, full, names) == 5 && l.countOn(t, fresh, names) == 2
	}))
	framework.Never(t, "more migrations once the marks hold", 2*time.Second, func() bool {
		clk.Step(time.Second)
		return l.countOn(t, full, names) != 5
	})
	if got := labelledCounter(t, reg, "graft_descheduler_evictions_total", map[string]string{"plugin": "Rebalance", "result": "evicted"}); got != 2 {
		t.Errorf("Rebalance migrations = %v, want 2", got)
	}

	// The new seed turns full (2 of 2) and the old one low (5 of 10): the
	// two shoots on the new seed were migrated by Rebalance and stay.
	markSeedReady(t, fresh, 2, nil)
	markSeedReady(t, full, 10, nil)
	framework.WaitFor(t, "the migrated shoots to be found cooling down", time.Minute, stepping(clk, func() bool {
		return labelledCounter(t, reg, "graft_descheduler_evictions_total", map[string]string{"plugin": "Rebalance", "result": "cooling_down"}) > 0
	}))
	framework.Never(t, "a migrated shoot to move back within the cool-down", 2*time.Second, func() bool {
		clk.Step(time.Second)
		return l.countOn(t, fresh, names) != 2
	})
	for _, name := range names {
		if n := g.movesOf(l.namespace + "/" + name); n > 1 {
			t.Errorf("shoot %s migrated %d times", name, n)
		}
	}
}

// TestComeHomeOnGardener: a shoot whose control plane runs on a seed of
// another region migrates home, in its window, through Gardener's binding
// admission, once a seed of its region is ready.
func TestComeHomeOnGardener(t *testing.T) {
	l := newLandscapeWith(t, "home", landscapeSeed{"far", func(s *coretest.SeedWrapper) { migratable(s); s.Region("us-east-1") }},
		landscapeSeed{"home", migratable})
	far, home := l.seeds[0], l.seeds[1]
	markSeedReady(t, far, -1, nil)
	l.labelSeeds(t)
	now := time.Now().UTC().Truncate(time.Second)
	// Gardener gives every shoot a window; this one's is open.
	l.createOn(t, "away", far, window(now.Add(-30*time.Minute)))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	g := newGardenletStandIn(time.Second)
	g.start(t, ctx)
	clk := clocktesting.NewFakeClock(now)
	reg := startClockedDescheduler(t, "graft-descheduler-comehome", clk, "config.interval=1m", "config.evictionRate=0",
		"config.plugins[0].name=ComeHome")
	framework.WaitFor(t, "the descheduler to find no seed home yet", time.Minute, stepping(clk, func() bool {
		return labelledCounter(t, reg, "graft_descheduler_evictions_total", map[string]string{"plugin": "ComeHome", "result": "not_improving"}) > 0
	}))
	markSeedReady(t, home, -1, nil)
	framework.WaitFor(t, "the shoot to migrate home", 2*time.Minute, stepping(clk, func() bool {
		on, settled := l.seedNameOf(t, "away")
		return on == home && settled
	}))
	if n := g.movesOf(l.namespace + "/away"); n != 1 {
		t.Errorf("the shoot migrated %d times, want 1", n)
	}
}
