package descheduler

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"
	"k8s.io/component-base/metrics"
	"k8s.io/klog/v2"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	"github.com/graft-dev/client-go/clientset/versioned/fake"
	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/component"
	"github.com/graft-dev/graft/pkg/coretest"
)

// benchSizes are the landscapes the pass benchmarks run on; the largest is
// the target (100,000 shoots on 2,000 seeds), and the one before it
// has as many seeds with a fifth of the shoots, to tell what grows with the
// shoots from what grows with the seeds.
var benchSizes = []struct{ seeds, shoots int }{
	{100, 5000},
	{1000, 50000},
	{2000, 20000},
	{2000, 100000},
}

// hotShoots is how many shoots the one seed that needs action holds.
const hotShoots = 500

// benchLandscape is a landscape of usable seeds with room to spare and
// shoots spread evenly over them, except the first seed, seed-0000, which
// holds hotShoots shoots. hot changes that seed: no taint, drained, or
// over its allocatable shoots.
type benchLandscape struct {
	seeds  []*v1alpha1.Seed
	shoots []*v1alpha1.Shoot
}

func newBenchLandscape(seeds, shoots int, hot func(*v1alpha1.Seed)) benchLandscape {
	var l benchLandscape
	perSeed := (shoots - hotShoots) / (seeds - 1)
	room := *resource.NewQuantity(int64(2*perSeed+hotShoots), resource.DecimalSI)
	for i := range seeds {
		s := coretest.MakeSeed(fmt.Sprintf("seed-%04d", i)).Allocatable(-1).Obj()
		s.ResourceVersion = "1"
		s.Status.Allocatable = corev1.ResourceList{v1alpha1.ResourceShoots: room}
		if i == 0 && hot != nil {
			hot(s)
		}
		l.seeds = append(l.seeds, s)
	}
	// The shoots share one spec template: only their metadata and seed
	// differ, which keeps 100,000 of them small enough for a benchmark.
	template := coretest.MakeShoot("garden-dev", "template").Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Obj()
	for i := range shoots {
		seed := 0
		if i >= hotShoots {
			seed = 1 + (i-hotShoots)/perSeed
			if seed >= seeds {
				seed = 1 + i%(seeds-1)
			}
		}
		s := &v1alpha1.Shoot{
			ObjectMeta: metav1.ObjectMeta{
				Namespace: "garden-dev", Name: fmt.Sprintf("shoot-%06d", i),
				ResourceVersion: strconv.Itoa(10 + i), CreationTimestamp: template.CreationTimestamp,
			},
			Spec: template.Spec,
		}
		s.Spec.SeedName = ptr.To(l.seeds[seed].Name)
		l.shoots = append(l.shoots, s)
	}
	return l
}

// benchDescheduler returns a descheduler in dry-run mode (a pass decides
// as the daemon does, but writes nothing) with both plugins enabled, whose
// state holds the landscape as the informers would have delivered it.
func benchDescheduler(b *testing.B, l benchLandscape) *Descheduler {
	b.Helper()
	// The landscape's shoots are one project: a budget of one move in
	// flight would stop each pass after a single decision.
	cfg := &configv1alpha1.DeschedulerConfiguration{
		Plugins: []configv1alpha1.DeschedulerPlugin{
			{Name: configv1alpha1.DeschedulerPluginNoExecuteTaints},
			{Name: configv1alpha1.DeschedulerPluginOverCapacity},
		},
		MaxMovesInFlightPerProject: ptr.To[int32](0),
	}
	// Events go nowhere.
	return dryRunDescheduler(b, cfg, &record.FakeRecorder{}, l.seeds, l.shoots)
}

// dryRunDescheduler returns a descheduler for the configuration in dry-run
// mode, recording Events with recorder, whose state holds the seeds and
// shoots as the informers would have delivered them. Its informers are not
// started: passes are run by hand.
func dryRunDescheduler(tb testing.TB, cfg *configv1alpha1.DeschedulerConfiguration, recorder record.EventRecorder, seeds []*v1alpha1.Seed, shoots []*v1alpha1.Shoot) *Descheduler {
	tb.Helper()
	cfg.DryRun = true
	cfg.EvictionRate = ptr.To(0.0)
	defaultResolved(cfg)
	if errs := cfg.Validate(); len(errs) > 0 {
		tb.Fatalf("invalid test configuration: %v", errs)
	}
	clk := clocktesting.NewFakeClock(t0)
	d, err := New(cfg, component.Clients{Graft: fake.NewSimpleClientset(), Kubernetes: kubefake.NewSimpleClientset()},
		Options{Registry: metrics.NewKubeRegistry(), Clock: clk})
	if err != nil {
		tb.Fatal(err)
	}
	d.ev.recorder = recorder
	if err := d.informers.CloudProfiles().Informer.GetIndexer().Add(cloudProfile()); err != nil {
		tb.Fatal(err)
	}
	for _, s := range seeds {
		d.state.setSeed(nil, s, t0)
	}
	for _, s := range shoots {
		d.state.setShoot(s, t0, false)
	}
	return d
}

// BenchmarkPass measures one pass over every seed, as each interval makes
// it: the view it takes of the state, the plugins, the safety rules and, in
// dry-run mode, the decisions without their writes. The pass window (the
// eviction budgets) starts over before each pass, so every pass decides the
// same.
func BenchmarkPass(b *testing.B) {
	cases := []struct {
		name string
		hot  func(*v1alpha1.Seed)
	}{
		{"no-taints", nil},
		{"one-drained-seed", func(s *v1alpha1.Seed) { s.Spec.Taints = []v1alpha1.SeedTaint{drainTaint} }},
		{"one-over-capacity-seed", func(s *v1alpha1.Seed) {
			s.Status.Allocatable = corev1.ResourceList{v1alpha1.ResourceShoots: *resource.NewQuantity(hotShoots-20, resource.DecimalSI)}
		}},
	}
	// The pass logs each dry-run eviction; a logger that discards keeps
	// the output readable and the cost of a terminal out of the figures.
	ctx := klog.NewContext(context.Background(), klog.Logger{})
	for _, size := range benchSizes {
		for _, c := range cases {
			b.Run(fmt.Sprintf("seeds=%d/shoots=%d/%s", size.seeds, size.shoots, c.name), func(b *testing.B) {
				d := benchDescheduler(b, newBenchLandscape(size.seeds, size.shoots, c.hot))
				names := d.state.seedNames()
				b.ReportAllocs()
				for b.Loop() {
					d.gate.newWindow()
					d.pass(ctx, names, false)
				}
			})
		}
	}
}

// BenchmarkStateBuild measures filling the descheduler's state with every
// shoot of a landscape, as the informers' first list does: the memory it
// reports per operation, divided by the shoot count, is what the state keeps
// per cached shoot besides the shoot object itself.
func BenchmarkStateBuild(b *testing.B) {
	l := newBenchLandscape(2000, 100000, nil)
	b.ReportAllocs()
	for b.Loop() {
		st := newState()
		for _, s := range l.seeds {
			st.setSeed(nil, s, t0)
		}
		for _, s := range l.shoots {
			st.setShoot(s, t0, false)
		}
	}
}

// BenchmarkPassWithBacklog measures a pass over one drained seed beside a
// backlog of 1,000 shoots waiting for a seed, which a pass reserves a seed
// for before its first eviction: once when the drained seed's shoots fit
// elsewhere, and once when they fit nowhere (a drain blocked for want of
// room, woken again by every binding in the garden).
func BenchmarkPassWithBacklog(b *testing.B) {
	ctx := klog.NewContext(context.Background(), klog.Logger{})
	for _, blocked := range []bool{false, true} {
		name := "drain"
		if blocked {
			name = "drain-without-room"
		}
		b.Run(name, func(b *testing.B) {
			l := newBenchLandscape(2000, 20000, func(s *v1alpha1.Seed) {
				s.Spec.Taints = []v1alpha1.SeedTaint{drainTaint}
				s.Labels = map[string]string{"hot": "true"}
			})
			if blocked {
				for _, s := range l.shoots[:hotShoots] {
					s.Spec.SeedSelector = &v1alpha1.SeedSelector{LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{"hot": "true"}}}
				}
			}
			for i := range 1000 {
				s := coretest.MakeShoot("garden-dev", fmt.Sprintf("waiting-%04d", i)).Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Obj()
				s.ResourceVersion = strconv.Itoa(1_000_000 + i)
				l.shoots = append(l.shoots, s)
			}
			d := benchDescheduler(b, l)
			b.ReportAllocs()
			for b.Loop() {
				d.gate.newWindow()
				d.pass(ctx, []string{"seed-0000"}, false)
			}
		})
	}
}
