package descheduler

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/coretest"
	"github.com/graft-dev/graft/pkg/landscapefile"
)

// The improving landscape: 200 regions of 10 seeds, 2,000 in all, each of
// 63 allocatable shoots. In each region 9 seeds are full above the high
// mark (55 or 56 shoots, 87-89%) and one new seed has just joined, empty.
// One shoot in 97 runs outside its region (its own was full when it
// was created): 100,000 shoots in all. The new seeds can take every seed's
// excess before they reach the low mark, and the scheduler (least used
// first) chooses them: the marks can hold everywhere.
const (
	improveRegions  = 200
	improvePerReg   = 10
	improveShoots   = 100000
	improveAlloc    = 63
	improveAwayEach = 97 // one shoot in improveAwayEach runs away from home (prime, so spread over the seeds)
)

func regionName(r int) string { return fmt.Sprintf("r%03d-west-1", r) }

// newImproveLandscape builds the landscape, its new seeds last in each region.
func newImproveLandscape() benchLandscape {
	var l benchLandscape
	var old []*v1alpha1.Seed
	for r := range improveRegions {
		for i := range improvePerReg {
			s := coretest.MakeSeed(fmt.Sprintf("seed-%03d-%02d", r, i)).Region(regionName(r)).Obj()
			s.ResourceVersion = "1"
			s.Status.Allocatable = corev1.ResourceList{v1alpha1.ResourceShoots: *resource.NewQuantity(improveAlloc, resource.DecimalSI)}
			l.seeds = append(l.seeds, s)
			if i < improvePerReg-1 {
				old = append(old, s)
			}
		}
	}
	template := coretest.MakeShoot("garden-dev", "template").Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Obj()
	for i := range improveShoots {
		seed := old[i%len(old)]
		s := &v1alpha1.Shoot{
			ObjectMeta: metav1.ObjectMeta{Namespace: "garden-dev", Name: fmt.Sprintf("shoot-%06d", i), ResourceVersion: strconv.Itoa(10 + i), CreationTimestamp: template.CreationTimestamp},
			Spec:       template.Spec,
		}
		s.Spec.Region = seed.Spec.Provider.Region
		if i%improveAwayEach == 0 {
			// Its home is the next region.
			var r int
			fmt.Sscanf(seed.Spec.Provider.Region, "r%03d", &r)
			s.Spec.Region = regionName((r + 1) % improveRegions)
		}
		s.Spec.SeedName = ptr.To(seed.Name)
		l.shoots = append(l.shoots, s)
	}
	return l
}

// improvingPlugins is the descheduler configuration of the two improving
// plugins with their default arguments, but for maxMovesPerPass.
func improvingPlugins(perPass int) []configv1alpha1.DeschedulerPlugin {
	args := fmt.Appendf(nil, `{"maxMovesPerPass":%d,"maxMovesPerHour":0}`, perPass)
	// ComeHome first: a shoot that goes home also relieves its seed, which
	// then needs one move fewer from Rebalance.
	return []configv1alpha1.DeschedulerPlugin{
		{Name: configv1alpha1.DeschedulerPluginComeHome, Args: runtime.RawExtension{Raw: args}},
		{Name: configv1alpha1.DeschedulerPluginRebalance, Args: runtime.RawExtension{Raw: args}},
	}
}

// BenchmarkImprovingPass measures one pass of Rebalance and ComeHome over
// every seed of the improving landscape (2,000 seeds, 100,000 shoots), in
// dry-run mode: with the default budget of 5 moves per pass for each, and
// with no budget (every move the landscape needs, decided in one pass).
func BenchmarkImprovingPass(b *testing.B) {
	ctx := klog.NewContext(context.Background(), klog.Logger{})
	l := newImproveLandscape()
	for _, perPass := range []int{5, 0} {
		b.Run(fmt.Sprintf("seeds=%d/shoots=%d/maxMovesPerPass=%d", len(l.seeds), len(l.shoots), perPass), func(b *testing.B) {
			cfg := &configv1alpha1.DeschedulerConfiguration{Plugins: improvingPlugins(perPass), MaxMovesInFlightPerProject: ptr.To[int32](0),
				MaxEvictionsPerSeed: ptr.To[int32](0), MaxEvictionsTotal: ptr.To[int32](0), MaxPendingEvicted: ptr.To[int32](0)}
			d := dryRunDescheduler(b, cfg, &record.FakeRecorder{}, l.seeds, l.shoots)
			names := d.state.seedNames()
			b.ReportAllocs()
			var moves float64
			for b.Loop() {
				d.gate.newWindow()
				before := counter(b, d.metrics.Evictions.WithLabelValues("Rebalance", ResultDryRun)) + counter(b, d.metrics.Evictions.WithLabelValues("ComeHome", ResultDryRun))
				d.pass(ctx, names, false)
				moves = counter(b, d.metrics.Evictions.WithLabelValues("Rebalance", ResultDryRun)) + counter(b, d.metrics.Evictions.WithLabelValues("ComeHome", ResultDryRun)) - before
			}
			b.ReportMetric(moves, "moves/pass")
		})
	}
}

// BenchmarkPlan measures ComputePlan, what graftctl runs for a plan: the
// drain of the seed with hotShoots shoots over two days with the default
// configuration, and a day of Rebalance and ComeHome on the improving
// landscape (simulate --improve's horizon), its shoots' projects unlimited
// as in the other improving benchmarks. It reports the moves planned and
// the passes run.
func BenchmarkPlan(b *testing.B) {
	landscape := landscapefile.New()
	landscape.CloudProfiles = []*v1alpha1.CloudProfile{cloudProfile()}
	drained := func(s *v1alpha1.Seed) { s.Spec.Taints = []v1alpha1.SeedTaint{drainTaint} }
	improving := newImproveLandscape()
	for _, c := range []struct {
		name    string
		seeds   []*v1alpha1.Seed
		shoots  []*v1alpha1.Shoot
		plugins []configv1alpha1.DeschedulerPlugin
		horizon time.Duration
	}{
		{"drain/seeds=100/shoots=5000", nil, nil, nil, 48 * time.Hour},
		{"drain/seeds=2000/shoots=100000", nil, nil, nil, 48 * time.Hour},
		{"improving/seeds=2000/shoots=100000", improving.seeds, improving.shoots, improvingPlugins(5), 24 * time.Hour},
	} {
		b.Run(c.name, func(b *testing.B) {
			if c.seeds == nil {
				var seeds, shoots int
				if _, err := fmt.Sscanf(c.name, "drain/seeds=%d/shoots=%d", &seeds, &shoots); err != nil {
					b.Fatal(err)
				}
				l := newBenchLandscape(seeds, shoots, drained)
				c.seeds, c.shoots = l.seeds, l.shoots
			}
			cfg := &configv1alpha1.DeschedulerConfiguration{Plugins: c.plugins}
			if c.plugins != nil {
				cfg.MaxMovesInFlightPerProject = ptr.To[int32](0)
			}
			defaultResolved(cfg)
			var plan *Plan
			b.ReportAllocs()
			for b.Loop() {
				var err error
				if plan, err = ComputePlan(c.seeds, c.shoots, t0, PlanOptions{Config: cfg, Landscape: landscape, Until: t0.Add(c.horizon)}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(plan.Moves)), "moves")
			b.ReportMetric(float64(plan.Passes), "passes")
		})
	}
}

// BenchmarkImprovingPassIdle measures a pass of Rebalance and ComeHome over
// a landscape that needs no improvement (2,000 seeds with room to spare,
// 100,000 shoots at home): what turning them on costs each interval.
func BenchmarkImprovingPassIdle(b *testing.B) {
	ctx := klog.NewContext(context.Background(), klog.Logger{})
	l := newBenchLandscape(2000, 100000, nil)
	cfg := &configv1alpha1.DeschedulerConfiguration{Plugins: improvingPlugins(5), MaxMovesInFlightPerProject: ptr.To[int32](0)}
	d := dryRunDescheduler(b, cfg, &record.FakeRecorder{}, l.seeds, l.shoots)
	names := d.state.seedNames()
	b.ReportAllocs()
	for b.Loop() {
		d.gate.newWindow()
		d.pass(ctx, names, false)
	}
}
