package invariant

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"
	"github.com/graft-dev/graft/pkg/algorithm"
	"github.com/graft-dev/graft/pkg/coretest"
	"github.com/graft-dev/graft/test/e2e/landscapegen"
)

func small() *landscapegen.Landscape {
	return landscapegen.Generate(landscapegen.Spec{
		Scenario: "t", Providers: []string{"aws", "gcp"}, RegionsPerProvider: 1, SeedsPerRegion: 2, SeedCapacity: 2, Shoots: 4,
	})
}

func state(l *landscapegen.Landscape) Landscape {
	return Landscape{Seeds: l.Seeds, Shoots: l.Shoots, CloudProfiles: l.CloudProfiles}
}

func bind(shoot *corev1alpha1.Shoot, seed string) { shoot.Spec.SeedName = ptr.To(seed) }

func first(vs []Violation, _ []Skip) []Violation { return vs }

func rules(vs []Violation) []Rule {
	var out []Rule
	for _, v := range vs {
		out = append(out, v.Rule)
	}
	return out
}

func TestCheck(t *testing.T) {
	t.Run("valid bindings", func(t *testing.T) {
		l := small()
		// Shoots alternate aws, gcp; seeds are t-aws-region-1-0/1, t-gcp-region-1-0/1.
		bind(l.Shoots[0], "t-aws-region-1-0")
		bind(l.Shoots[2], "t-aws-region-1-1")
		bind(l.Shoots[1], "t-gcp-region-1-0")
		if vs, _ := Check(state(l), nil); len(vs) != 0 {
			t.Fatalf("violations %v, want none", vs)
		}
	})
	t.Run("wrong provider", func(t *testing.T) {
		l := small()
		bind(l.Shoots[0], "t-gcp-region-1-0")
		vs, _ := Check(state(l), nil)
		if len(vs) != 1 || vs[0].Rule != RuleSeedFilters || !strings.Contains(vs[0].Message, "Provider") {
			t.Fatalf("violations %v, want one SeedFilters for the provider", vs)
		}
	})
	t.Run("unknown seed", func(t *testing.T) {
		l := small()
		bind(l.Shoots[0], "gone")
		if got := rules(first(Check(state(l), nil))); len(got) != 1 || got[0] != RuleUnknownSeed {
			t.Fatalf("rules %v, want UnknownSeed", got)
		}
	})
	t.Run("above allocatable", func(t *testing.T) {
		l := small()
		l.Seeds[0].Status.Allocatable = corev1.ResourceList{corev1alpha1.ResourceShoots: resource.MustParse("1")}
		bind(l.Shoots[0], l.Seeds[0].Name)
		bind(l.Shoots[2], l.Seeds[0].Name)
		got := rules(first(Check(state(l), nil)))
		if len(got) != 1 || got[0] != RuleCapacity {
			t.Fatalf("rules %v, want Capacity once for the seed", got)
		}
	})
	t.Run("cordoned seed", func(t *testing.T) {
		l := small()
		seeds := map[string]*corev1alpha1.Seed{}
		for _, s := range l.Seeds {
			seeds[s.Name] = s
		}
		l.Seeds[0].Spec.Taints = []corev1alpha1.SeedTaint{{Key: corev1alpha1.SeedTaintUnschedulable, Effect: corev1alpha1.TaintEffectNoSchedule}}
		bind(l.Shoots[0], l.Seeds[0].Name)
		bind(l.Shoots[2], l.Seeds[0].Name)
		if vs, _ := Check(state(l), AllowNoScheduleTaints(seeds)); len(vs) != 0 {
			t.Fatalf("violations %v, want none: shoots stay on a cordoned seed", vs)
		}
		if vs, _ := Check(state(l), nil); len(vs) != 2 {
			t.Fatalf("without the exception: violations %v, want two", vs)
		}
		// Drained: untolerated NoExecute is never deliberate; a tolerating shoot
		// is not rejected at all.
		l.Seeds[0].Spec.Taints = []corev1alpha1.SeedTaint{{Key: corev1alpha1.SeedTaintUnschedulable, Effect: corev1alpha1.TaintEffectNoExecute}}
		l.Shoots[2].Spec.Tolerations = []corev1alpha1.Toleration{{Key: corev1alpha1.SeedTaintUnschedulable, TolerationSeconds: ptr.To[int64](60)}}
		vs, _ := Check(state(l), AllowNoScheduleTaints(seeds))
		if len(vs) != 1 || vs[0].Shoot != "garden-t/"+l.Shoots[0].Name {
			t.Fatalf("violations %v, want one for the untolerating shoot only", vs)
		}
	})
}

func TestCheckPending(t *testing.T) {
	l := small()
	for _, s := range l.Seeds[1:] {
		s.Status.Allocatable = corev1.ResourceList{corev1alpha1.ResourceShoots: resource.MustParse("0")}
	}
	l.Seeds[0].Status.Allocatable = corev1.ResourceList{corev1alpha1.ResourceShoots: resource.MustParse("1")}
	// Shoots 0 and 2 are aws: one takes the only aws slot, the other waits.
	bind(l.Shoots[0], l.Seeds[0].Name)
	got, _ := CheckPending(state(l))
	// Shoot 2 (aws) and shoots 1 and 3 (gcp) cannot be placed but carry no lastOperation.
	if len(got) != 3 {
		t.Fatalf("violations %v, want 3 without lastOperation", got)
	}
	for _, i := range []int{1, 2, 3} {
		l.Shoots[i].Status.LastOperation = &corev1alpha1.LastOperation{Type: corev1alpha1.LastOperationTypeCreate, State: corev1alpha1.LastOperationStatePending, Description: "0/4 seeds fit"}
	}
	if got, _ := CheckPending(state(l)); len(got) != 0 {
		t.Fatalf("violations %v, want none", got)
	}
	// Room appears: the pending aws shoot could be placed now.
	l.Seeds[0].Status.Allocatable = corev1.ResourceList{corev1alpha1.ResourceShoots: resource.MustParse("5")}
	got, _ = CheckPending(state(l))
	if len(got) != 1 || got[0].Shoot != "garden-t/"+l.Shoots[2].Name || got[0].Seed != l.Seeds[0].Name {
		t.Fatalf("violations %v, want shoot 2 placeable on %s", got, l.Seeds[0].Name)
	}
}

func TestCheckSkipsWithReason(t *testing.T) {
	l := small()
	delete(l.Seeds[3].Status.Allocatable, corev1alpha1.ResourceShoots)
	bind(l.Shoots[0], l.Seeds[0].Name)
	s := state(l)
	s.Schedulers = map[string]algorithm.Config{corev1alpha1.DefaultSchedulerName: {}}
	l.Shoots[2].Spec.SchedulerName = ptr.To("other-scheduler")
	bind(l.Shoots[2], l.Seeds[0].Name)
	vs, skips := Check(s, nil)
	if len(vs) != 0 {
		t.Fatalf("violations %v, want none", vs)
	}
	var reasons []string
	for _, sk := range skips {
		reasons = append(reasons, sk.String())
	}
	joined := strings.Join(reasons, "\n")
	if len(skips) != 2 || !strings.Contains(joined, "no status.allocatable.shoots") || !strings.Contains(joined, "not known to the checker") {
		t.Fatalf("skips:\n%s\nwant one for the seed without allocatable and one for the shoot of an unknown scheduler", joined)
	}
}

// fixture drives a Monitor the way the suite's watches do, with a clock and
// resourceVersions under the test's control.
type fixture struct {
	t     *testing.T
	m     *Monitor
	now   time.Time
	rv    uint64
	l     *landscapegen.Landscape
	seeds map[string]*corev1alpha1.Seed
	cms   map[string]*corev1.ConfigMap
	log   []string
}

func newFixture(t *testing.T, options ...func(*MonitorOptions)) *fixture {
	l := landscapegen.Generate(landscapegen.Spec{
		Scenario: "t", Providers: []string{"aws", "gcp"}, RegionsPerProvider: 1, SeedsPerRegion: 2, SeedCapacity: 2, Shoots: 6,
	})
	f := &fixture{t: t, now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), l: l,
		seeds: map[string]*corev1alpha1.Seed{}, cms: map[string]*corev1.ConfigMap{}}
	opts := MonitorOptions{
		Grace: time.Minute,
		Now:   func() time.Time { return f.now },
		Logf:  func(format string, args ...any) { f.log = append(f.log, fmt.Sprintf(format, args...)) },
	}
	for _, o := range options {
		o(&opts)
	}
	f.m = NewMonitor(opts)
	f.m.SetScheduler(corev1alpha1.DefaultSchedulerName, algorithm.Config{})
	f.m.SetScheduler("distance", algorithm.Config{Strategy: algorithm.StrategyMinimalDistance})
	var seeds, profiles []runtime.Object
	for _, s := range f.l.Seeds {
		s = s.DeepCopy()
		s.ResourceVersion = f.next()
		f.seeds[s.Name] = s
		seeds = append(seeds, s)
	}
	for _, cp := range f.l.CloudProfiles {
		cp = cp.DeepCopy()
		cp.ResourceVersion = f.next()
		profiles = append(profiles, cp)
	}
	list := f.next()
	f.m.Relist(KindSeed, seeds, list)
	f.m.Relist(KindCloudProfile, profiles, list)
	f.m.Relist(KindConfigMap, nil, list)
	f.m.Relist(KindShoot, nil, list)
	return f
}

func (f *fixture) next() string {
	f.rv++
	return strconv.FormatUint(f.rv, 10)
}

func (f *fixture) tick(d time.Duration) { f.now = f.now.Add(d) }

// shoot delivers a watch event of shoot i on seed at generation.
func (f *fixture) shoot(i int, seed string, generation int64, mutate ...func(*corev1alpha1.Shoot)) *corev1alpha1.Shoot {
	s := f.l.Shoots[i].DeepCopy()
	s.Generation = generation
	if seed != "" {
		s.Spec.SeedName = ptr.To(seed)
	}
	for _, m := range mutate {
		m(s)
	}
	s.ResourceVersion = f.next()
	f.m.Observe(s)
	return s
}

// changeSeed delivers a watch event of a changed seed.
func (f *fixture) changeSeed(name string, change func(*corev1alpha1.Seed)) {
	s := f.seeds[name].DeepCopy()
	change(s)
	s.ResourceVersion = f.next()
	f.seeds[name] = s
	f.m.Observe(s)
}

func (f *fixture) configMap(cm *corev1.ConfigMap) {
	cm = cm.DeepCopy()
	cm.ResourceVersion = f.next()
	f.cms[cm.Name] = cm
	f.m.Observe(cm)
}

// settle lists what lags, as the suite does, and judges.
func (f *fixture) settle() {
	f.t.Helper()
	for _, k := range f.m.Lagging() {
		var objs []runtime.Object
		switch k {
		case KindSeed:
			for _, s := range f.seeds {
				objs = append(objs, s)
			}
		case KindConfigMap:
			for _, cm := range f.cms {
				objs = append(objs, cm)
			}
		case KindCloudProfile:
			for _, cp := range f.l.CloudProfiles {
				cp = cp.DeepCopy()
				cp.ResourceVersion = "2"
				objs = append(objs, cp)
			}
		}
		f.m.Relist(k, objs, f.next())
	}
	if n := f.m.Judge(); n != 0 {
		f.t.Fatalf("%d bindings still pending after the inputs caught up", n)
	}
}

func (f *fixture) wantRules(want ...Rule) {
	f.t.Helper()
	f.settle()
	got := rules(f.m.Violations())
	if !slices.Equal(got, want) {
		f.t.Fatalf("violations %v, want rules %v\nlog:\n%s", f.m.Violations(), want, strings.Join(f.log, "\n"))
	}
}

func TestMonitorBoundOnce(t *testing.T) {
	f := newFixture(t)
	key := "garden-t/" + f.l.Shoots[0].Name
	a, b := "t-aws-region-1-0", "t-aws-region-1-1"
	f.shoot(0, "", 1)
	f.shoot(0, a, 2)
	f.shoot(0, a, 2) // a status write
	f.shoot(0, "", 3)
	f.shoot(0, b, 4)
	f.wantRules()
	if f.m.Binds(key) != 2 || f.m.Evictions(key) != 1 {
		t.Fatalf("binds %d evictions %d, want 2 and 1", f.m.Binds(key), f.m.Evictions(key))
	}
	f.shoot(0, a, 5) // rebound over a binding
	f.wantRules(RuleBoundOnce)
	if v := f.m.Violations()[0]; !strings.Contains(v.Message, "from seed "+b+" to "+a) || !v.At.Equal(f.now) {
		t.Fatalf("violation %v, want the move from %s to %s at %s", v, b, a, f.now)
	}

	// Repaired: the shoot is evicted and placed well afterwards. The
	// violation stays.
	f.tick(time.Minute)
	f.shoot(0, "", 6)
	f.shoot(0, b, 7)
	f.wantRules(RuleBoundOnce)
}

// On a Gardener garden a bound shoot moves from seed to seed in one change:
// with its eviction record newly naming the seed it left, that is a
// migration (an eviction and a binding, judged as any binding); without, it
// is still a move over a binding.
func TestMonitorMigrations(t *testing.T) {
	f := newFixture(t, func(o *MonitorOptions) { o.Migrations = true })
	key := "garden-t/" + f.l.Shoots[0].Name
	a, b := "t-aws-region-1-0", "t-aws-region-1-1"
	migrated := func(from string, at time.Time) func(*corev1alpha1.Shoot) {
		return func(s *corev1alpha1.Shoot) {
			s.Annotations = map[string]string{
				corev1alpha1.AnnotationDescheduledFrom: from,
				corev1alpha1.AnnotationEvictions:       helper.RecordEviction(helper.Evictions(s), helper.Eviction{Seed: from, Cause: "NoExecuteTaints: x", At: at}, time.Hour),
			}
		}
	}
	f.shoot(0, "", 1)
	f.shoot(0, a, 2)
	moved := f.shoot(0, b, 3, migrated(a, f.now))
	f.wantRules()
	if f.m.Binds(key) != 2 || f.m.Evictions(key) != 1 {
		t.Fatalf("binds %d evictions %d, want 2 and 1", f.m.Binds(key), f.m.Evictions(key))
	}
	// Back to a, naming b, with no new record of it: nothing recorded
	// this move.
	f.shoot(0, a, 4, func(s *corev1alpha1.Shoot) {
		s.Annotations = map[string]string{
			corev1alpha1.AnnotationDescheduledFrom: b,
			corev1alpha1.AnnotationEvictions:       moved.Annotations[corev1alpha1.AnnotationEvictions],
		}
	})
	f.wantRules(RuleBoundOnce)
}

func TestMonitorRepairedPlacementStillFails(t *testing.T) {
	f := newFixture(t)
	f.shoot(0, "", 1)
	f.shoot(0, "t-gcp-region-1-0", 2) // an aws shoot on a gcp seed
	// The descheduler moves it away before anyone samples the state.
	f.shoot(0, "", 3)
	f.shoot(0, "t-aws-region-1-0", 4)
	f.wantRules(RuleSeedFilters)
	if v := f.m.Violations()[0]; !strings.Contains(v.Message, "Provider") {
		t.Fatalf("violation %v, want the provider filter named", v)
	}
}

func TestMonitorUnknownSeed(t *testing.T) {
	f := newFixture(t)
	f.shoot(0, "", 1)
	f.shoot(0, "gone", 2)
	f.wantRules(RuleUnknownSeed)
}

func TestMonitorWaitsForItsOwnSeedWatch(t *testing.T) {
	f := newFixture(t)
	// A seed created just before the binding, which the checker's seed watch
	// has not delivered yet: the binding waits for it.
	seed := f.seeds["t-aws-region-1-0"].DeepCopy()
	seed.Name = "t-aws-region-1-new"
	seed.ResourceVersion = f.next()
	f.seeds[seed.Name] = seed
	f.shoot(0, "", 1)
	f.shoot(0, seed.Name, 2)
	if n := f.m.Judge(); n != 1 {
		t.Fatalf("%d bindings pending, want the one whose seed the checker has not seen", n)
	}
	if lag := f.m.Lagging(); !slices.Contains(lag, KindSeed) {
		t.Fatalf("lagging %v, want seeds listed", lag)
	}
	f.wantRules()
}

func TestMonitorCapacity(t *testing.T) {
	setAlloc := func(n string) func(*corev1alpha1.Seed) {
		return func(s *corev1alpha1.Seed) {
			s.Status.Allocatable = corev1.ResourceList{corev1alpha1.ResourceShoots: resource.MustParse(n)}
		}
	}
	seed := "t-aws-region-1-0" // allocatable 2; shoots 0, 2 and 4 are aws
	t.Run("full", func(t *testing.T) {
		f := newFixture(t)
		for i, shoot := range []int{0, 2, 4} {
			f.shoot(shoot, "", 1)
			f.shoot(shoot, seed, 2)
			if i < 2 {
				f.wantRules()
			}
		}
		f.wantRules(RuleCapacity)
	})
	t.Run("lowered just before: the scheduler may not have seen it", func(t *testing.T) {
		f := newFixture(t)
		f.shoot(0, "", 1)
		f.shoot(0, seed, 2)
		f.changeSeed(seed, setAlloc("1"))
		f.tick(10 * time.Second)
		f.shoot(2, "", 1)
		f.shoot(2, seed, 2)
		f.wantRules()
	})
	t.Run("lowered long before", func(t *testing.T) {
		f := newFixture(t)
		f.shoot(0, "", 1)
		f.shoot(0, seed, 2)
		f.changeSeed(seed, setAlloc("1"))
		f.tick(2 * time.Minute)
		f.shoot(2, "", 1)
		f.shoot(2, seed, 2)
		f.wantRules(RuleCapacity)
	})
	t.Run("created bound by the test after the scheduler read the shoot", func(t *testing.T) {
		f := newFixture(t)
		f.shoot(2, "", 1) // the scheduler reads this version
		f.shoot(0, seed, 1)
		f.shoot(4, seed, 1) // the test creates two shoots on the seed
		f.shoot(2, seed, 2)
		f.wantRules()
		if skips := f.m.Skips(); len(skips) != 1 || skips[0].Rule != RuleCapacity || !strings.Contains(skips[0].Reason, "created bound") {
			t.Fatalf("skips %v, want capacity not judged because of the shoots the test created bound", skips)
		}
	})
	t.Run("seed without allocatable", func(t *testing.T) {
		f := newFixture(t)
		f.changeSeed(seed, func(s *corev1alpha1.Seed) { s.Status.Allocatable = nil })
		for _, shoot := range []int{0, 2, 4} {
			f.shoot(shoot, "", 1)
			f.shoot(shoot, seed, 2)
		}
		f.wantRules()
		if skips := f.m.Skips(); len(skips) != 3 || !strings.Contains(skips[0].Reason, "no status.allocatable.shoots") {
			t.Fatalf("skips %v, want one per binding saying the seed has no allocatable", skips)
		}
		if summary := f.m.SkipSummary(); len(summary) != 1 || !strings.HasPrefix(summary[0], "3x ") {
			t.Fatalf("summary %v, want the reason once, counted 3 times", summary)
		}
	})
}

func TestMonitorTaints(t *testing.T) {
	seed := "t-aws-region-1-0"
	noExecute := func(s *corev1alpha1.Seed) {
		s.Spec.Taints = []corev1alpha1.SeedTaint{{Key: "key", Effect: corev1alpha1.TaintEffectNoExecute}}
	}
	t.Run("a shoot left on a seed tainted NoExecute is not a binding", func(t *testing.T) {
		f := newFixture(t)
		f.shoot(0, "", 1)
		f.shoot(0, seed, 2)
		f.changeSeed(seed, noExecute)
		f.tick(time.Minute)
		f.shoot(0, "", 3)
		f.shoot(0, "t-aws-region-1-1", 4)
		f.wantRules()
	})
	t.Run("bound right after the taint", func(t *testing.T) {
		f := newFixture(t)
		f.changeSeed(seed, noExecute)
		f.tick(time.Second)
		f.shoot(0, "", 1)
		f.shoot(0, seed, 2)
		f.wantRules()
	})
	t.Run("bound long after the taint", func(t *testing.T) {
		f := newFixture(t)
		f.changeSeed(seed, noExecute)
		f.tick(2 * time.Minute)
		f.shoot(0, "", 1)
		f.shoot(0, seed, 2)
		f.wantRules(RuleSeedFilters)
	})
}

func TestMonitorRegionConfigMap(t *testing.T) {
	cm := coretest.RegionConfigMap(corev1alpha1.GardenNamespace, "regions", "t-aws", map[string]string{"aws-region-1": "{ not a map"})
	distance := func(s *corev1alpha1.Shoot) { s.Spec.SchedulerName = ptr.To("distance") }
	t.Run("created just before the binding", func(t *testing.T) {
		f := newFixture(t)
		f.configMap(cm)
		f.tick(time.Second)
		f.shoot(0, "", 1, distance)
		f.shoot(0, "t-aws-region-1-0", 2, distance)
		f.wantRules()
	})
	t.Run("known long before the binding", func(t *testing.T) {
		f := newFixture(t)
		f.configMap(cm)
		f.tick(2 * time.Minute)
		f.shoot(0, "", 1, distance)
		f.shoot(0, "t-aws-region-1-0", 2, distance)
		f.wantRules(RuleSeedFilters)
		if v := f.m.Violations()[0]; !strings.Contains(v.Message, "cannot be evaluated") {
			t.Fatalf("violation %v, want the broken region entry named", v)
		}
	})
	t.Run("unknown scheduler", func(t *testing.T) {
		f := newFixture(t)
		f.shoot(0, "", 1, func(s *corev1alpha1.Shoot) { s.Spec.SchedulerName = ptr.To("nobody") })
		f.shoot(0, "t-gcp-region-1-0", 2, func(s *corev1alpha1.Shoot) { s.Spec.SchedulerName = ptr.To("nobody") })
		f.wantRules()
		if skips := f.m.Skips(); len(skips) != 1 || !strings.Contains(skips[0].Reason, `"nobody" is not known`) {
			t.Fatalf("skips %v, want the unknown scheduler named", skips)
		}
	})
}

func TestMonitorGap(t *testing.T) {
	a, b := "t-aws-region-1-0", "t-aws-region-1-1"
	// relist ends a watch gap with shoot 0 as given.
	relist := func(f *fixture, seed string, generation int64, from string) {
		s := f.l.Shoots[0].DeepCopy()
		s.Generation = generation
		s.Spec.SeedName = ptr.To(seed)
		if from != "" {
			s.Annotations = map[string]string{corev1alpha1.AnnotationDescheduledFrom: from}
		}
		s.ResourceVersion = f.next()
		f.m.Gap(KindShoot)
		f.tick(20 * time.Second)
		f.m.Relist(KindShoot, []runtime.Object{s}, f.next())
	}
	t.Run("one spec change from seed to seed", func(t *testing.T) {
		f := newFixture(t)
		f.shoot(0, "", 1)
		f.shoot(0, a, 2)
		relist(f, b, 3, a)
		f.wantRules(RuleBoundOnce)
	})
	t.Run("an eviction and a binding", func(t *testing.T) {
		f := newFixture(t)
		f.shoot(0, "", 1)
		f.shoot(0, a, 2)
		relist(f, b, 4, a)
		f.wantRules()
		if f.m.Gaps() != 1 || f.m.Evictions("garden-t/"+f.l.Shoots[0].Name) != 1 {
			t.Fatalf("gaps %d evictions %d, want 1 and 1", f.m.Gaps(), f.m.Evictions("garden-t/"+f.l.Shoots[0].Name))
		}
	})
	t.Run("two spec changes without an eviction from the seed", func(t *testing.T) {
		f := newFixture(t)
		f.shoot(0, "", 1)
		f.shoot(0, a, 2)
		relist(f, b, 4, "")
		f.wantRules(RuleBoundOnce)
	})
	t.Run("an eviction annotation older than the gap proves nothing", func(t *testing.T) {
		f := newFixture(t)
		f.shoot(0, "", 1)
		f.shoot(0, a, 2, func(s *corev1alpha1.Shoot) {
			s.Annotations = map[string]string{corev1alpha1.AnnotationDescheduledFrom: a}
		})
		relist(f, b, 4, a)
		f.wantRules(RuleBoundOnce)
	})
	t.Run("the binding made in the gap is judged", func(t *testing.T) {
		f := newFixture(t)
		f.shoot(0, "", 1)
		relist(f, "t-gcp-region-1-0", 2, "")
		f.wantRules(RuleSeedFilters)
	})
}

func TestMonitorCapacityIgnoresStatesTheSeedCouldNotBeChosenIn(t *testing.T) {
	f := newFixture(t)
	seed := "t-aws-region-1-0" // allocatable 2
	// Created without status (not ready, no allocatable), then given both.
	f.changeSeed(seed, func(s *corev1alpha1.Seed) { s.Status = corev1alpha1.SeedStatus{} })
	ready := f.l.Seeds[0].Status.DeepCopy()
	f.changeSeed(seed, func(s *corev1alpha1.Seed) { s.Status = *ready })
	f.tick(time.Second)
	for _, shoot := range []int{0, 2, 4} {
		f.shoot(shoot, "", 1)
		f.shoot(shoot, seed, 2)
	}
	f.wantRules(RuleCapacity)
}
