//go:build integration

package descheduler

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/test/framework"
	"github.com/graft-dev/graft/test/integration/descheduler/fixture"
)

// withPlugins turns on the improving plugins with their arguments, over fast.
func withPlugins(plugins map[string]string) func(*configv1alpha1.DeschedulerConfiguration) {
	return func(c *configv1alpha1.DeschedulerConfiguration) {
		fast(c)
		c.Plugins = nil
		for _, name := range []string{"NoExecuteTaints", "Rebalance", "ComeHome"} {
			if args, ok := plugins[name]; ok {
				c.Plugins = append(c.Plugins, configv1alpha1.DeschedulerPlugin{Name: name, Args: runtime.RawExtension{Raw: []byte(args)}})
			}
		}
	}
}

// setAllocatable sets a seed's allocatable shoots.
func setAllocatable(t *testing.T, ctx context.Context, l *fixture.Landscape, short string, n int64) {
	t.Helper()
	patch, _ := json.Marshal(map[string]any{"status": map[string]any{"allocatable": map[string]any{"shoots": fmt.Sprint(n)}}})
	if _, err := l.Graft.CoreV1alpha1().Seeds().Patch(ctx, l.SeedName(short), types.MergePatchType, patch, metav1.PatchOptions{}, "status"); err != nil {
		t.Fatal(err)
	}
}

// ticking steps the descheduler's clock by a second on each poll of cond:
// the wakes of held seeds (a second after a seed or placement changes) and
// the pass interval run on that clock.
func ticking(clk *clocktesting.FakeClock, cond func(context.Context) (bool, error)) func(context.Context) (bool, error) {
	return func(ctx context.Context) (bool, error) {
		clk.Step(time.Second)
		return cond(ctx)
	}
}

// perSeed counts the landscape's shoots by seed (short names; "" unbound).
func perSeed(t *testing.T, ctx context.Context, l *fixture.Landscape) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, s := range must[[]v1alpha1.Shoot](t)(l.Shoots(ctx)) {
		seed := fixture.Of(&s)
		if seed != "" {
			seed = seed[len(l.Name)+1:]
		}
		out[seed]++
	}
	return out
}

// TestRebalanceFillsANewSeedInWindows: two seeds above the high mark (85%)
// and a new one under the low mark (60%). graft-scheduler places every
// evicted shoot where it chooses; the descheduler's clock is the test's.
// The shoots whose windows are open move to the new seed, the next one when
// its window opens, until both old seeds are at the mark; then nothing more
// moves. A shoot Rebalance moved is not moved again within the cool-down
// even when its new seed turns full, and is once the cool-down is over. A
// seed under the low mark that the scheduler would not choose (another
// region, an untolerated taint) takes nothing.
func TestRebalanceFillsANewSeedInWindows(t *testing.T) {
	ctx, env, l := setup(t, "rebalance")
	must[*v1alpha1.Seed](t)(l.Seed(ctx, "a", 10))
	must[*v1alpha1.Seed](t)(l.Seed(ctx, "b", 10))
	// Low, but in another region or with a taint the shoots do not
	// tolerate: the scheduler never sends these shoots there.
	must[*v1alpha1.Seed](t)(l.SeedIn(ctx, "elsewhere", l.Name+"-east", 10))
	must[*v1alpha1.Seed](t)(l.Seed(ctx, "dedicated", 10, v1alpha1.SeedTaint{Key: "dedicated", Effect: v1alpha1.TaintEffectNoSchedule}))
	window := func(s *v1alpha1.Shoot, begin, end string) *v1alpha1.Shoot {
		s.Spec.Maintenance = &v1alpha1.Maintenance{TimeWindow: &v1alpha1.MaintenanceTimeWindow{Begin: begin, End: end}}
		return s
	}
	var shoots []*v1alpha1.Shoot
	for i := range 10 {
		// a's shoots: one in a window open at noon, the rest in the evening.
		s := window(l.NewShoot(fmt.Sprintf("a%d", i), "a"), "180000+0000", "190000+0000")
		if i == 0 {
			s = window(s, "113000+0000", "123000+0000")
		}
		shoots = append(shoots, s)
	}
	for i := range 9 {
		shoots = append(shoots, l.NewShoot(fmt.Sprintf("b%d", i), "b")) // no window: any time
	}
	if err := l.CreateShoots(ctx, shoots, 4); err != nil {
		t.Fatal(err)
	}
	startScheduler(t, ctx, env, "rebalance-scheduler")
	clk := clocktesting.NewFakeClock(noon)
	d := startClocked(t, ctx, env, "rebalance-descheduler", clk, withPlugins(map[string]string{"Rebalance": `{"coolDown":"168h"}`}))

	// Nothing to give to: the only low seed is not the scheduler's choice.
	framework.WaitFor(t, "the descheduler to find no improvement", time.Minute, func(context.Context) (bool, error) {
		return metricValue(t, d.Registry, "graft_descheduler_evictions_total", map[string]string{"plugin": "Rebalance", "result": "not_improving"}) > 0, nil
	})
	if got := perSeed(t, ctx, l); got["a"] != 10 || got["b"] != 9 {
		t.Fatalf("shoots moved to a seed the scheduler would not choose: %v", got)
	}

	// A new seed joins the region.
	must[*v1alpha1.Seed](t)(l.Seed(ctx, "c", 10))
	framework.WaitFor(t, "a's open-window shoot and b's shoot to move to c", time.Minute, ticking(clk, func(context.Context) (bool, error) {
		got := perSeed(t, ctx, l)
		return got["a"] == 9 && got["b"] == 8 && got["c"] == 2, nil
	}))
	if s := seedOf(t, ctx, l, l.Name, "a0"); s != l.SeedName("c") {
		t.Errorf("a0, whose window is open, is on %s", s)
	}
	eventFor(t, ctx, l, l.Name, "Descheduled", "a0", "Rebalance: seed "+l.SeedName("a")+" holds 10 shoots of 10 allocatable")
	framework.Never(t, "a shoot of a to move outside its window", 2*time.Second, func() bool {
		clk.Step(time.Second)
		return perSeed(t, ctx, l)["a"] != 9
	})

	// 18:00:01: a's evening window opens; one more shoot leaves a.
	clk.SetTime(noon.Add(6*time.Hour + time.Second))
	framework.WaitFor(t, "a to reach the high mark in its shoots' window", time.Minute, func(context.Context) (bool, error) {
		got := perSeed(t, ctx, l)
		return got["a"] == 8 && got["c"] == 3, nil
	})
	framework.Never(t, "more moves once the marks hold", 2*time.Second, func() bool {
		clk.Step(time.Second)
		got := perSeed(t, ctx, l)
		return got["a"] != 8 || got["b"] != 8 || got["c"] != 3
	})

	// c turns full (3 of 3) and a new low seed d joins: c's shoots were all
	// moved by Rebalance, and stay for the cool-down.
	setAllocatable(t, ctx, l, "c", 3)
	must[*v1alpha1.Seed](t)(l.Seed(ctx, "d", 10))
	framework.WaitFor(t, "c's shoots to be found cooling down", time.Minute, ticking(clk, func(context.Context) (bool, error) {
		return metricValue(t, d.Registry, "graft_descheduler_evictions_total", map[string]string{"plugin": "Rebalance", "result": "cooling_down"}) > 0, nil
	}))
	framework.Never(t, "a shoot to move twice within the cool-down", 2*time.Second, func() bool {
		clk.Step(time.Second)
		return perSeed(t, ctx, l)["c"] != 3
	})

	// A week later the cool-down is over: c gives one shoot to d (3 of 3
	// is one over 85%).
	clk.SetTime(noon.Add(7*24*time.Hour + 6*time.Hour + 2*time.Second))
	framework.WaitFor(t, "c to give a shoot to d after the cool-down", time.Minute, ticking(clk, func(context.Context) (bool, error) {
		got := perSeed(t, ctx, l)
		return got["c"] == 2 && got["d"] == 1, nil
	}))
}

// TestComeHomeWhenASeedOpens: a shoot placed outside its region (its own
// had no seed) stays while no seed of its region takes it, and goes home,
// placed by graft-scheduler, when one opens there. A shoot whose window is
// closed waits for it.
func TestComeHomeWhenASeedOpens(t *testing.T) {
	ctx, env, l := setup(t, "comehome")
	must[*v1alpha1.Seed](t)(l.SeedIn(ctx, "far", l.Name+"-east", -1))
	away := l.NewShoot("away", "far")
	later := l.NewShoot("later", "far")
	later.Spec.Maintenance = &v1alpha1.Maintenance{TimeWindow: &v1alpha1.MaintenanceTimeWindow{Begin: "200000+0000", End: "210000+0000"}}
	if err := l.CreateShoots(ctx, []*v1alpha1.Shoot{away, later}, 2); err != nil {
		t.Fatal(err)
	}
	startScheduler(t, ctx, env, "comehome-scheduler")
	clk := clocktesting.NewFakeClock(noon)
	d := startClocked(t, ctx, env, "comehome-descheduler", clk, withPlugins(map[string]string{"ComeHome": `{}`}))
	framework.WaitFor(t, "the descheduler to find no seed home yet", time.Minute, func(context.Context) (bool, error) {
		return metricValue(t, d.Registry, "graft_descheduler_evictions_total", map[string]string{"plugin": "ComeHome", "result": "not_improving"}) > 0, nil
	})
	must[*v1alpha1.Seed](t)(l.Seed(ctx, "home", -1))
	framework.WaitFor(t, "the shoot to go home", time.Minute, ticking(clk, func(context.Context) (bool, error) {
		return seedOf(t, ctx, l, l.Name, "away") == l.SeedName("home"), nil
	}))
	eventFor(t, ctx, l, l.Name, "Descheduled", "away", "ComeHome: the shoot's region is "+l.Name)
	framework.Never(t, "the shoot with a closed window to move", 2*time.Second, func() bool {
		clk.Step(time.Second)
		return seedOf(t, ctx, l, l.Name, "later") != l.SeedName("far")
	})
	clk.SetTime(noon.Add(8*time.Hour + time.Second))
	framework.WaitFor(t, "the other shoot to go home in its window", time.Minute, func(context.Context) (bool, error) {
		return seedOf(t, ctx, l, l.Name, "later") == l.SeedName("home"), nil
	})
	if got := metricValue(t, d.Registry, "graft_descheduler_evictions_total", map[string]string{"plugin": "ComeHome", "result": "evicted"}); got != 2 {
		t.Errorf("ComeHome moves = %v, want 2", got)
	}
}
