package descheduler

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"golang.org/x/time/rate"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/component-base/metrics"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/algorithm"
	"github.com/graft-dev/graft/pkg/descheduler/framework"
	"github.com/graft-dev/graft/pkg/garden"
	"github.com/graft-dev/graft/pkg/schedulingconfig"
	"github.com/graft-dev/graft/pkg/taintclock"
)

// PlanOptions is what a plan is computed with.
type PlanOptions struct {
	// Config is graft-descheduler's configuration, defaulted and valid. Its
	// dryRun is not read: the plan is what a descheduler that writes does.
	Config *configv1alpha1.DeschedulerConfiguration
	// Registry builds the configuration's plugins; nil: DefaultRegistry.
	Registry framework.Registry
	// Scheduling is the strategy and score weights the destinations are
	// chosen with; nil: the configuration's.
	Scheduling *algorithm.Config
	// Landscape gives the cloud profiles, projects and region ConfigMaps of
	// the decisions; its Migration tells the API (Gardener's: moves are
	// control-plane migrations).
	Landscape algorithm.Landscape
	// Live is what is known of the gardenlets that run GEP-39's live flow;
	// nil: the configuration's liveMigrationGardenletVersions alone.
	Live *algorithm.LiveFlow
	// Until is the end of the plan.
	Until time.Time
	// Landing is how long a move takes to land once written: on graft's API
	// until the scheduler binds the shoot, on Gardener's until the
	// destination's gardenlet has taken the control plane over. 0: before
	// the descheduler's next look.
	Landing time.Duration
}

// PlannedMove is one move of a plan.
type PlannedMove struct {
	// Shoot is the shoot as it was before the plan.
	Shoot *v1alpha1.Shoot
	// From is the seed it leaves; To where it goes: on Gardener's API the
	// destination the move binds, on graft's the seed the scheduler binds
	// it to once the move landed ("" when none did by the plan's end).
	From, To string
	Plugin   string
	Reason   string
	// At is when the descheduler writes the move, its wait for the token
	// bucket included.
	At time.Time
	// Live is set for a move timed as a live control-plane migration
	// (GEP-39): between gardenlets known to run the live flow. A move that
	// asks to go live without that evidence is timed, and here counted, as
	// the classic migration gardenlet runs.
	Live bool
	// Why says what let the move go at At (maintenance.When's Why), Waited
	// what held it until then ("" for a move at its first look).
	Why, Waited string
}

// PlannedWait is a move a plugin still wants at the end of the plan, and
// the descheduler's last answer to it.
type PlannedWait struct {
	Shoot        *v1alpha1.Shoot
	Seed, Plugin string
	// Result is the refusal's result (graft_descheduler_evictions_total),
	// Why what holds the move.
	Result, Why string
	// Next is when the descheduler looks at it again; zero: when a move
	// lands or placements change.
	Next time.Time
}

// Plan is what graft-descheduler does on a landscape from Start to Until.
type Plan struct {
	Start, Until time.Time
	// Moves are the moves in the order they are written.
	Moves []PlannedMove
	// Waiting are the moves still held at Until, by shoot.
	Waiting []PlannedWait
	// Passes counts the descheduler's passes the plan took.
	Passes int
	// Usage is each seed's usage at Until, by name.
	Usage map[string]int
	// Migrates is set where the moves are control-plane migrations
	// (garden.Moves).
	Migrates bool
}

// ComputePlan computes what graft-descheduler does on the landscape of
// seeds and shoots from now to o.Until: it runs the descheduler's own
// passes, gate and plugins over a copy of the landscape and a simulated
// clock, on the same schedule as the daemon (a pass over every seed at the
// start and every interval, each seed again when a pass or a refusal asks,
// held seeds when a move lands), and writes each admitted move into the copy
// as the API would store it, landing it o.Landing later. The objects given
// are not changed.
func ComputePlan(seeds []*v1alpha1.Seed, shoots []*v1alpha1.Shoot, now time.Time, o PlanOptions) (*Plan, error) {
	p, err := newPlanner(o, now)
	if err != nil {
		return nil, err
	}
	for _, s := range seeds {
		p.d.state.setSeed(nil, s, now)
	}
	for _, s := range shoots {
		p.d.state.setShoot(s, now, false)
	}
	p.d.gate.recallChurn(p.d.state.eachShoot)
	p.run(o.Until)
	return p.result(o.Until), nil
}

// planner is a descheduler over a simulated landscape and clock.
type planner struct {
	d      *Descheduler
	api    garden.API
	clock  *clocktesting.FakeClock
	agenda *agenda
	// limiter is the token bucket on the simulated clock.
	limiter *rate.Limiter
	landing time.Duration
	// flying are the written moves still to land, in landing order;
	// unplaced those on graft's API no seed took yet, in the order written.
	flying   []landing
	unplaced []landing
	// before is each planned shoot as it was, by key.
	before map[string]*v1alpha1.Shoot
	plan   Plan
	waits  map[string]PlannedWait
	// held is each shoot's last refusal, until it moves.
	held map[string]string
	// stamped and written are what the current pass wrote, for the
	// informers to bring when it ends.
	stamped map[string]seedWrite
	written map[string]shootWrite
	// dirty is set when the landscape changed since the last tick's pass
	// over every seed (at fullPass): a move written or landed, a taint
	// stamped.
	dirty    bool
	fullPass time.Time
}

type seedWrite struct{ old, seed *v1alpha1.Seed }

type shootWrite struct{ old, shoot *v1alpha1.Shoot }

// landing is a written move (Plan.Moves[move]) and when it lands.
type landing struct {
	at   time.Time
	key  string
	move int
}

func newPlanner(o PlanOptions, now time.Time) (*planner, error) {
	if o.Config == nil || o.Landscape == nil {
		return nil, errors.New("plan: a configuration and a landscape are required")
	}
	cfg := o.Config.DeepCopy()
	cfg.DryRun = false
	registry := o.Registry
	if registry == nil {
		registry = DefaultRegistry()
	}
	plugins, err := registry.Build(cfg.Plugins)
	if err != nil {
		return nil, fmt.Errorf("plan: %w", err)
	}
	algo := schedulingconfig.FromComponentConfig(cfg.Strategy, cfg.ScoreWeights)
	if o.Scheduling != nil {
		algo = *o.Scheduling
	}
	if err := algo.Validate(); err != nil {
		return nil, fmt.Errorf("plan: %w", err)
	}
	m, err := metricsFor(metrics.NewKubeRegistry())
	if err != nil {
		return nil, fmt.Errorf("plan: %w", err)
	}
	api := garden.APIOf(o.Landscape)
	clk := clocktesting.NewFakeClock(now)
	p := &planner{api: api, clock: clk, agenda: newAgenda(clk.Now), limiter: newLimiter(cfg), landing: o.Landing,
		before: map[string]*v1alpha1.Shoot{}, waits: map[string]PlannedWait{}, held: map[string]string{}, plan: Plan{Start: now, Migrates: api.Migrates()},
		stamped: map[string]seedWrite{}, written: map[string]shootWrite{}}
	d := &Descheduler{
		cfg: cfg, api: api, metrics: m, clock: clk, plugins: plugins, algo: algo,
		state: newState(), toMove: newRemaining(m.ToMove), deferred: newRemaining(m.Deferred),
		inputsBuilder: &algorithm.InputsBuilder{Landscape: o.Landscape, Config: algo}, sim: p, watcher: p,
	}
	d.ev = newEvictor(cfg, api, m, clk, d.state)
	d.ev.recorder, d.ev.records = discardEvents{}, newRecordKey()
	if o.Live != nil {
		d.ev.liveFlow = *o.Live
	}
	d.gate = newGate(cfg, clk, d.state, m, p.agenda, &d.ev.records, churnLimitsOf(plugins), d.ev)
	d.ev.gate = d.gate
	d.configureState()
	p.d = d
	return p, nil
}

// run steps the simulated clock from event to event until until: the
// descheduler's ticks (a new pass window, every seed queued), the seeds'
// requeues, and the moves landing. A tick after which nothing changed
// (dirty unset) passes over every seed to the same end as the last one:
// what the clock changes (a window opening or closing, a toleration, a
// deadline) asks for its own requeue. Only its pass window starts, and the
// clock jumps to the next requeue or landing.
func (p *planner) run(until time.Time) {
	interval := p.d.cfg.Interval.Duration
	p.agenda.addAll(p.d.state.seedNames())
	if interval == 0 {
		// One pass over every seed, as graft-descheduler makes then.
		p.pass(p.agenda.due(p.clock.Now()), true)
		return
	}
	nextTick := p.clock.Now().Add(interval)
	for {
		if !p.dirty {
			// A requeue for a time comes requeueSlack after it: a tick in
			// between already sees what changed then.
			event, ok := p.nextEvent()
			changed := event.Add(-requeueSlack)
			if !ok || changed.After(until) {
				return
			}
			if changed.After(nextTick) {
				// The idle ticks before it start their windows.
				n := changed.Sub(nextTick) / interval
				if changed.Sub(nextTick)%interval == 0 {
					n--
				}
				last := nextTick.Add(n * interval)
				p.clock.SetTime(last)
				p.d.gate.newWindow()
				p.d.gate.reasked(p.fullPass, last)
				nextTick = last.Add(interval)
			}
		}
		next := nextTick
		if at, ok := p.nextEvent(); ok && at.Before(next) {
			next = at
		}
		if next.After(until) {
			return
		}
		p.clock.SetTime(next)
		p.land(next)
		full := false
		if next.Equal(nextTick) {
			p.d.gate.newWindow()
			if at, ok := p.nextEvent(); p.dirty || ok && !at.After(next.Add(requeueSlack)) {
				p.agenda.addAll(p.d.state.seedNames())
				p.dirty, p.fullPass, full = false, next, true
			}
			nextTick = nextTick.Add(interval)
		}
		if due := p.agenda.due(next); len(due) > 0 {
			p.pass(due, false)
			// A pass over some seeds, for what the clock changed, may change
			// what a pass over all of them meets first (the limits that end
			// a pass): the next tick passes over every seed again.
			p.dirty = p.dirty || !full
		}
	}
}

// nextEvent is the earliest requeue or landing.
func (p *planner) nextEvent() (time.Time, bool) {
	at, ok := p.agenda.next()
	if len(p.flying) > 0 && (!ok || p.flying[0].at.Before(at)) {
		at, ok = p.flying[0].at, true
	}
	return at, ok
}

// pass makes one pass over the seeds, as the daemon's worker does, then
// hands the state what the pass wrote as the informers would: the seeds,
// then the shoots, each by name.
func (p *planner) pass(seeds []string, once bool) {
	p.plan.Passes++
	p.d.passOver(context.Background(), p.d.state.takeView(seeds, p.clock.Now()), once)
	for _, name := range sets.List(sets.KeySet(p.stamped)) {
		p.d.onSeed(p.stamped[name].old, p.stamped[name].seed)
	}
	clear(p.stamped)
	for _, key := range sets.List(sets.KeySet(p.written)) {
		p.d.onShoot(p.written[key].old, p.written[key].shoot)
	}
	clear(p.written)
}

// land lands the moves due by now, in the order written: on Gardener's
// API the destination's gardenlet takes the control plane over; on graft's
// the scheduler binds the shoot where it then fits (algorithm.Schedule, as
// graft-scheduler decides), or leaves it waiting to try again at the next
// step. The informer brings each landed shoot.
func (p *planner) land(now time.Time) {
	due := p.unplaced
	p.unplaced = nil
	for len(p.flying) > 0 && !p.flying[0].at.After(now) {
		due = append(due, p.flying[0])
		p.flying = p.flying[1:]
	}
	slices.SortStableFunc(due, func(a, b landing) int { return a.move - b.move })
	for _, l := range due {
		p.d.state.mu.Lock()
		current := p.d.state.shoots[l.key]
		p.d.state.mu.Unlock()
		if current == nil {
			continue
		}
		// A move bound to its destination lands there; one that is not,
		// where the scheduler places it then.
		target := ptr.Deref(current.Spec.SeedName, "")
		if target == "" {
			var err error
			if target, err = algorithm.Schedule(current, p.d.state.snapshot, p.d.inputs(current)); err != nil {
				p.unplaced = append(p.unplaced, l)
				continue
			}
		}
		p.plan.Moves[l.move].To = target
		p.d.onShoot(current, p.api.Landed(current, target, now))
		p.dirty = true
	}
}

// stamp is stampTaintClocks in the copy: the seed's NoExecute taints with
// the times this process first saw them.
func (p *planner) stamp(seed *v1alpha1.Seed) *v1alpha1.Seed {
	taints, changed := taintclock.Stamp(seed.Spec.Taints, p.d.state.sighting(seed.Name, p.clock.Now()))
	if !changed {
		return seed
	}
	out := seed.DeepCopy()
	out.Spec.Taints = taints
	p.d.state.setOwnSeed(out, p.clock.Now())
	p.dirty = true
	if w, ok := p.stamped[seed.Name]; ok {
		seed = w.old
	}
	p.stamped[seed.Name] = seedWrite{old: seed, seed: out}
	return out
}

// looked notes that a pass looks at a seed's moves again: its earlier
// refusals are answered anew.
func (p *planner) looked(seed string) {
	for key, w := range p.waits {
		if w.Seed == seed {
			delete(p.waits, key)
		}
	}
}

// admitted: the planner learns of an admitted move when it writes it.
func (p *planner) admitted(eviction) {}

// refused notes the descheduler's answer to a move it holds.
func (p *planner) refused(plugin, seed string, shoot *v1alpha1.Shoot, no *refusal) {
	p.waits[algorithm.ShootKey(shoot)] = PlannedWait{Shoot: shoot, Seed: seed, Plugin: plugin, Result: no.result(), Why: no.why, Next: no.at}
	p.held[algorithm.ShootKey(shoot)] = no.why
}

// write is the planner's writer: it stores an admitted move as the API
// would, in the order the pass admits them, paced by the token bucket.
func (p *planner) write(e eviction) {
	now := p.clock.Now()
	at := now.Add(p.limiter.ReserveN(now, 1).DelayFrom(now))
	key := algorithm.ShootKey(e.shoot)
	if _, ok := p.before[key]; !ok {
		p.before[key] = e.shoot
	}
	delete(p.waits, key)
	annotations := p.d.state.moves.Annotations(e.seed.Name, e.plugin+": "+e.reason, p.d.ev.record(e), e.live)
	written := p.d.state.moves.Written(e.shoot, e.target, annotations, now)
	e.release(moved, written)
	p.written[key] = shootWrite{old: e.shoot, shoot: written}
	p.dirty = true
	// Where an unbound move goes is the scheduler's to say, when it lands.
	p.plan.Moves = append(p.plan.Moves, PlannedMove{Shoot: p.before[key], From: e.seed.Name, To: p.d.state.moves.Bound(e.target), Plugin: e.plugin, Reason: e.reason, At: at, Live: e.timing.live,
		Why: e.timing.at(now).Why, Waited: p.held[key]})
	delete(p.held, key)
	// Written in order at one time, landing in the order written.
	p.flying = append(p.flying, landing{at: now.Add(p.landing), key: key, move: len(p.plan.Moves) - 1})
}

func (p *planner) result(until time.Time) *Plan {
	out := p.plan
	out.Until = until
	out.Usage = map[string]int{}
	p.d.state.mu.Lock()
	p.d.state.snapshot.EachSeed(func(seed *v1alpha1.Seed, usage int) { out.Usage[seed.Name] = usage })
	p.d.state.mu.Unlock()
	for _, w := range p.waits {
		out.Waiting = append(out.Waiting, w)
	}
	slices.SortFunc(out.Waiting, func(a, b PlannedWait) int {
		return strings.Compare(algorithm.ShootKey(a.Shoot), algorithm.ShootKey(b.Shoot))
	})
	return &out
}

// planWriter submits a pass's moves to the planner.
type planWriter struct{ p *planner }

func (w planWriter) submit(e eviction) { w.p.write(e) }

func (planWriter) finish() {}

// agenda is when each seed is looked at next, as the descheduler's delaying
// workqueue keeps it: one time per seed, the earliest asked.
type agenda struct {
	now func() time.Time
	at  map[string]time.Time
}

// newAgenda returns an empty agenda on a clock.
func newAgenda(now func() time.Time) *agenda {
	return &agenda{now: now, at: map[string]time.Time{}}
}

// AddAfter looks at seed again after d, unless it is due earlier.
func (a *agenda) AddAfter(seed string, d time.Duration) {
	t := a.now().Add(max(d, 0))
	if old, ok := a.at[seed]; !ok || t.Before(old) {
		a.at[seed] = t
	}
}

// Add looks at seed now.
func (a *agenda) Add(seed string) { a.AddAfter(seed, 0) }

// addAll looks at the seeds now.
func (a *agenda) addAll(seeds []string) {
	for _, s := range seeds {
		a.AddAfter(s, 0)
	}
}

// next is the earliest time a seed is due.
func (a *agenda) next() (time.Time, bool) {
	var first time.Time
	for _, t := range a.at {
		if first.IsZero() || t.Before(first) {
			first = t
		}
	}
	return first, !first.IsZero()
}

// due takes the seeds due by now, in name order.
func (a *agenda) due(now time.Time) []string {
	var out []string
	for s, t := range a.at {
		if !t.After(now) {
			out = append(out, s)
			delete(a.at, s)
		}
	}
	return sets.List(sets.New(out...))
}

// discardEvents drops the planner's Events: a plan says what it would
// emit through its moves and waits.
type discardEvents struct{}

func (discardEvents) Event(runtime.Object, string, string, string)          {}
func (discardEvents) Eventf(runtime.Object, string, string, string, ...any) {}
func (discardEvents) AnnotatedEventf(runtime.Object, map[string]string, string, string, string, ...any) {
}
