package descheduler

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/record"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/algorithm"
	"github.com/graft-dev/graft/pkg/coretest"
)

// planCase is one generated landscape and the configuration it is planned
// and run with.
type planCase struct {
	seeds   []*v1alpha1.Seed
	shoots  []*v1alpha1.Shoot
	config  func(*configv1alpha1.DeschedulerConfiguration)
	landing time.Duration
	until   time.Time
	about   []string
	// gardener is set for a landscape of Gardener's API.
	gardener bool
}

// planLandscapes is how many landscapes TestPlanIsWhatThePassDoes
// generates; GRAFT_PLAN_LANDSCAPES sets another number.
func planLandscapes(t *testing.T) int {
	n := 1000
	if v := os.Getenv("GRAFT_PLAN_LANDSCAPES"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			t.Fatalf("GRAFT_PLAN_LANDSCAPES=%q: %v", v, err)
		}
	}
	return n
}

// TestPlanIsWhatThePassDoes: on generated landscapes (drains in windows
// open, opening and far, with and without deadlines; urgent taints and
// limited tolerations; failed shoots; budgets per pass, pending and per
// project; improving plugins with churn limits; moves that land at once or
// later), the descheduler stepped over a fake clock (its passes, its
// evictor writing to the API, the informer's events, a scheduler binding
// the evicted shoots) makes exactly the moves, at the times and to the
// seeds, of the plan ComputePlan printed for the same landscape.
func TestPlanIsWhatThePassDoes(t *testing.T) {
	testPlanIsWhatThePassDoes(t, false)
}

// testPlanIsWhatThePassDoes compares the plan and the pass on generated
// landscapes of graft's API or, with gardener, Gardener's.
func testPlanIsWhatThePassDoes(t *testing.T, gardener bool) {
	n := planLandscapes(t)
	var mu sync.Mutex
	moves, moving := 0, 0
	t.Run("landscapes", func(t *testing.T) {
		for i := range n {
			t.Run(strconv.Itoa(i), func(t *testing.T) {
				t.Parallel()
				c := generatePlanCase(rand.New(rand.NewPCG(uint64(i), 60)), gardener)
				planned, done := comparePlan(t, c)
				if !slices.Equal(planned, done) {
					t.Fatalf("landscape %d (%s): the plan and the descheduler differ\nplanned: %s\ndone:    %s", i, strings.Join(c.about, ", "), strings.Join(planned, " "), strings.Join(done, " "))
				}
				mu.Lock()
				defer mu.Unlock()
				moves += len(done)
				if len(done) > 0 {
					moving++
				}
			})
		}
	})
	// A generator whose landscapes mostly make no move would test little.
	if !t.Failed() && moving < n/2 {
		t.Fatalf("only %d of %d landscapes made a move", moving, n)
	}
	t.Logf("%d landscapes, %d of them with moves, %d moves", n, moving, moves)
}

// comparePlan plans a case and runs it, and returns both as lists of moves.
func comparePlan(t *testing.T, c planCase) (planned, done []string) {
	t.Helper()
	s := startStepped(t, c)
	plan, err := ComputePlan(c.seeds, c.shoots, t0, PlanOptions{Config: s.d.cfg, Landscape: s.d.inputsBuilder.Landscape, Until: c.until, Landing: c.landing})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range plan.Moves {
		planned = append(planned, formatMove(algorithm.ShootKey(m.Shoot), m.From, m.To, m.At))
	}
	return planned, s.run(t, c)
}

func formatMove(key, from, to string, at time.Time) string {
	return fmt.Sprintf("%s:%s->%s@%s", key, from, to, at.Sub(t0))
}

// generatePlanCase draws a landscape of 3 to 6 seeds of up to 10 shoots;
// with gardener, of Gardener's API (gardenerPlanCase).
func generatePlanCase(r *rand.Rand, gardener bool) planCase {
	c := planCase{gardener: gardener}
	nSeeds := 3 + r.IntN(4)
	regions := []string{"eu-west-1", "eu-west-1", "us-east-1"}
	namespaces := []string{"garden-a", "garden-b", "garden-c"}
	windows := [][2]string{{"", ""}, {"113000+0000", "130000+0000"}, {"140000+0000", "150000+0000"}, {"080000+0000", "090000+0000"}, {"230000+0000", "003000+0000"}}
	for i := range nSeeds {
		name := fmt.Sprintf("s%d", i)
		alloc := int64(-1)
		if r.IntN(3) > 0 {
			alloc = int64(3 + r.IntN(8))
		}
		w := coretest.MakeSeed(name).Region(regions[r.IntN(len(regions))]).Allocatable(alloc)
		switch r.IntN(8) {
		case 0, 1:
			w.Taints(drainTaint)
			c.about = append(c.about, name+" drained")
			if r.IntN(2) == 0 {
				deadline := t0.Add(time.Duration(2+r.IntN(28)) * time.Hour)
				w.Annotation(v1alpha1.AnnotationDrainDeadline, deadline.Format(time.RFC3339))
				c.about = append(c.about, name+" in windows until "+deadline.Sub(t0).String())
			}
		case 2:
			taint := v1alpha1.SeedTaint{Key: "broken", Effect: v1alpha1.TaintEffectNoExecute}
			if r.IntN(2) == 0 {
				taint.TimeAdded = &metav1.Time{Time: t0.Add(-time.Duration(r.IntN(120)) * time.Minute)}
			}
			w.Taints(taint)
			c.about = append(c.about, name+" broken")
		}
		if gardener {
			w.Backup("aws").InternalDomain("internal.example").AgentVersion([]string{"v1.150.0", "v1.151.0"}[r.IntN(2)])
		}
		seed := w.Obj()
		c.seeds = append(c.seeds, seed)
		nShoots := r.IntN(8)
		if alloc > 0 && r.IntN(3) == 0 {
			nShoots = int(alloc) + r.IntN(3) // full or over
		}
		for j := range nShoots {
			sw := coretest.MakeShoot(namespaces[r.IntN(len(namespaces))], fmt.Sprintf("%s-%d", name, j)).Created(t0.Add(-time.Hour)).Seed(name).StatusSeed(name)
			region := seed.Spec.Provider.Region
			if r.IntN(6) == 0 {
				region = regions[r.IntN(len(regions))]
			}
			sw.Region(region)
			if gardener && r.IntN(3) == 0 {
				// Live-eligible: GEP-39 needs a highly available control plane.
				sw.FailureTolerance(v1alpha1.FailureToleranceTypeZone)
			}
			if win := windows[r.IntN(len(windows))]; win[0] != "" {
				sw.MaintenanceWindow(win[0], win[1])
			}
			switch r.IntN(10) {
			case 0:
				sw.Tolerate("broken", nil, v1alpha1.TaintEffectNoExecute, ptr.To(int64(60*(1+r.IntN(180)))))
			case 1:
				sw.Tolerate(v1alpha1.SeedTaintUnschedulable, nil, v1alpha1.TaintEffectNoExecute, nil)
			case 2:
				sw.LastOperation(v1alpha1.LastOperationTypeReconcile, v1alpha1.LastOperationStateFailed, "failed")
			default:
				sw.LastOperation(v1alpha1.LastOperationTypeReconcile, v1alpha1.LastOperationStateSucceeded, "")
			}
			c.shoots = append(c.shoots, sw.Obj())
		}
	}
	perSeed, total := int32(r.IntN(4)), int32(r.IntN(6))
	pending, project := int32(r.IntN(4)), int32(r.IntN(3))
	requireFit := r.IntN(4) > 0
	interval := []time.Duration{10 * time.Minute, 30 * time.Minute, time.Hour}[r.IntN(3)]
	plugins := []configv1alpha1.DeschedulerPlugin{{Name: configv1alpha1.DeschedulerPluginNoExecuteTaints}, {Name: configv1alpha1.DeschedulerPluginOverCapacity}}
	strategy := configv1alpha1.StrategySameRegion
	if r.IntN(2) == 0 {
		args := fmt.Appendf(nil, `{"maxMovesPerPass":%d,"maxMovesPerHour":%d}`, 1+r.IntN(3), r.IntN(6))
		plugins = append(plugins,
			configv1alpha1.DeschedulerPlugin{Name: configv1alpha1.DeschedulerPluginComeHome, Args: runtime.RawExtension{Raw: args}},
			configv1alpha1.DeschedulerPlugin{Name: configv1alpha1.DeschedulerPluginRebalance, Args: runtime.RawExtension{Raw: args}})
		strategy = configv1alpha1.StrategyMinimalDistance
		c.about = append(c.about, "improving "+string(args))
	}
	c.config = func(cfg *configv1alpha1.DeschedulerConfiguration) {
		cfg.Interval = &metav1.Duration{Duration: interval}
		cfg.MaxEvictionsPerSeed, cfg.MaxEvictionsTotal = &perSeed, &total
		cfg.MaxPendingEvicted, cfg.MaxMovesInFlightPerProject = &pending, &project
		cfg.RequireFit = &requireFit
		cfg.Plugins = plugins
		cfg.Strategy = strategy
		cfg.ConcurrentEvictions = 1
		cfg.MigrationTimeout = &metav1.Duration{}
	}
	if gardener {
		c = gardenerPlanCase(r, c)
	}
	c.landing = []time.Duration{0, 5 * time.Minute, 25 * time.Minute}[r.IntN(3)]
	c.until = t0.Add(26 * time.Hour)
	c.about = append(c.about, fmt.Sprintf("interval %s, per seed %d, total %d, pending %d, per project %d, requireFit %t, landing %s",
		interval, perSeed, total, pending, project, requireFit, c.landing))
	return c
}

// stepped is a descheduler whose informers the test plays: it hands the
// handlers each change of the API's objects after every step, so that a
// step ends with the descheduler having seen all of them.
type stepped struct {
	d        *Descheduler
	api      fakeGarden
	clock    *clocktesting.FakeClock
	agenda   *agenda
	mu       sync.Mutex
	seen     map[string]runtime.Object
	flying   []landing
	unplaced []landing
	landing  time.Duration
}

// startStepped builds a descheduler over the case's objects whose seed and
// shoot informers list and watch nothing: the test delivers.
func startStepped(t *testing.T, c planCase) *stepped {
	t.Helper()
	cfg := &configv1alpha1.DeschedulerConfiguration{EvictionRate: ptr.To(0.0)}
	c.config(cfg)
	defaultResolved(cfg)
	if errs := cfg.Validate(); len(errs) > 0 {
		t.Fatalf("invalid generated configuration: %v", errs)
	}
	clk := clocktesting.NewFakeClock(t0)
	var d *Descheduler
	var api fakeGarden
	var err error
	if c.gardener {
		d, api, err = gardenerStepped(c, cfg, clk)
	} else {
		d, api, err = graftStepped(c, cfg, clk)
	}
	if err != nil {
		t.Fatal(err)
	}
	d.ev.recorder = record.NewFakeRecorder(10000)
	d.ev.records = testRecordKey
	s := &stepped{d: d, api: api, clock: clk, seen: map[string]runtime.Object{}, landing: c.landing}
	s.agenda = newAgenda(clk.Now)
	d.gate.queue = lockedAgenda{a: s.agenda, mu: &s.mu}
	ctx := startInformers(t, d)
	// Polled closely: a thousand landscapes each wait for their informers.
	err = wait.PollUntilContextTimeout(ctx, time.Millisecond, waitTimeout, true, func(context.Context) (bool, error) {
		for _, synced := range d.synced {
			if !synced() {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		t.Fatalf("informers did not sync: %v", err)
	}
	s.deliver(t)
	return s
}

// lockedAgenda is an agenda the informers' handlers may add to.
type lockedAgenda struct {
	a  *agenda
	mu *sync.Mutex
}

func (l lockedAgenda) AddAfter(seed string, d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.a.AddAfter(seed, d)
}

func (l lockedAgenda) Add(seed string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.a.Add(seed)
}

// deliver plays the informers: every seed and shoot that changed since the
// last delivery goes to the descheduler's handlers, seeds first, each by
// name. It returns the shoots that changed.
func (s *stepped) deliver(t *testing.T) []*v1alpha1.Shoot {
	t.Helper()
	seeds, shoots, err := s.api.objects()
	if err != nil {
		t.Fatal(err)
	}
	for _, seed := range sortedSeeds(seeds) {
		if old, changed := s.changed("seed/"+seed.Name, seed); changed {
			s.d.onSeed(old, seed)
		}
	}
	var out []*v1alpha1.Shoot
	for _, shoot := range shoots {
		if old, changed := s.changed("shoot/"+algorithm.ShootKey(shoot), shoot); changed {
			s.d.onShoot(old, shoot)
			out = append(out, shoot)
		}
	}
	slices.SortFunc(out, func(a, b *v1alpha1.Shoot) int { return strings.Compare(algorithm.ShootKey(a), algorithm.ShootKey(b)) })
	return out
}

func sortedSeeds(items []*v1alpha1.Seed) []*v1alpha1.Seed {
	out := slices.Clone(items)
	slices.SortFunc(out, func(a, b *v1alpha1.Seed) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// changed remembers obj under key and returns what was delivered before
// (nil for none) when it differs.
func (s *stepped) changed(key string, obj runtime.Object) (runtime.Object, bool) {
	old, ok := s.seen[key]
	if ok && reflect.DeepEqual(old, obj) {
		return old, false
	}
	s.seen[key] = obj.DeepCopyObject()
	if !ok {
		return nil, true
	}
	return old, true
}

// run steps the descheduler as the daemon's loop does (planner.run) and
// returns its moves: each shoot the evictor wrote, when, and where it went
// (on graft's API the seed a scheduler bound it to when it landed).
func (s *stepped) run(t *testing.T, c planCase) []string {
	t.Helper()
	var moves []writtenMove
	interval := s.d.cfg.Interval.Duration
	s.agenda.addAll(s.d.state.seedNames())
	nextTick := t0.Add(interval)
	for {
		next := nextTick
		s.mu.Lock()
		if at, ok := s.agenda.next(); ok && at.Before(next) {
			next = at
		}
		s.mu.Unlock()
		if len(s.flying) > 0 && s.flying[0].at.Before(next) {
			next = s.flying[0].at
		}
		if next.After(c.until) {
			break
		}
		s.clock.SetTime(next)
		s.land(t, next, moves)
		if next.Equal(nextTick) {
			s.d.gate.newWindow()
			s.agenda.addAll(s.d.state.seedNames())
			nextTick = nextTick.Add(interval)
		}
		s.mu.Lock()
		due := s.agenda.due(next)
		s.mu.Unlock()
		if len(due) == 0 {
			continue
		}
		s.d.pass(context.Background(), due, false)
		for _, shoot := range s.writeOrder(s.deliver(t)) {
			m := writtenMove{key: algorithm.ShootKey(shoot), from: shoot.Annotations[v1alpha1.AnnotationDescheduledFrom], at: next,
				to: s.d.state.moves.Bound(ptr.Deref(shoot.Spec.SeedName, ""))}
			moves = append(moves, m)
			s.flying = append(s.flying, landing{at: next.Add(s.landing), key: m.key, move: len(moves) - 1})
		}
	}
	out := make([]string, len(moves))
	for i, m := range moves {
		out[i] = formatMove(m.key, m.from, m.to, m.at)
	}
	return out
}

type writtenMove struct {
	key, from, to string
	at            time.Time
}

// writeOrder are the changed shoots the evictor wrote, in the order of its
// patches.
func (s *stepped) writeOrder(changed []*v1alpha1.Shoot) []*v1alpha1.Shoot {
	byKey := map[string]*v1alpha1.Shoot{}
	for _, shoot := range changed {
		byKey[algorithm.ShootKey(shoot)] = shoot
	}
	var out []*v1alpha1.Shoot
	for _, key := range s.api.patchedShoots() {
		if shoot, ok := byKey[key]; ok {
			out = append(out, shoot)
			delete(byKey, key)
		}
	}
	return out
}

// land lands the moves due by now, in the order written, as the scheduler
// and the destination's gardenlet would: on graft's API a scheduler binds
// the shoot where algorithm.Schedule places it on the descheduler's view
// (or tries again at the next step), and the gardenlet reports it there. It
// writes to the API and delivers.
func (s *stepped) land(t *testing.T, now time.Time, moves []writtenMove) {
	t.Helper()
	due := s.unplaced
	s.unplaced = nil
	for len(s.flying) > 0 && !s.flying[0].at.After(now) {
		due = append(due, s.flying[0])
		s.flying = s.flying[1:]
	}
	slices.SortStableFunc(due, func(a, b landing) int { return a.move - b.move })
	for _, l := range due {
		namespace, name, _ := strings.Cut(l.key, "/")
		current, err := s.api.shoot(namespace, name)
		if err != nil {
			t.Fatal(err)
		}
		target := ptr.Deref(current.Spec.SeedName, "")
		if target == "" {
			// The scheduler places it.
			s.d.state.mu.Lock()
			target, err = algorithm.Schedule(current, s.d.state.snapshot, s.d.inputs(current))
			s.d.state.mu.Unlock()
			if err != nil {
				s.unplaced = append(s.unplaced, l)
				continue
			}
		}
		moves[l.move].to = target
		if err := s.api.update(s.d.api.Landed(current, target, now)); err != nil {
			t.Fatal(err)
		}
		s.deliver(t)
	}
}
