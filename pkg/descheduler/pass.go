package descheduler

import (
	"context"
	"errors"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/algorithm"
	"github.com/graft-dev/graft/pkg/descheduler/framework"
	"github.com/graft-dev/graft/pkg/maintenance"
)

// requeueSlack is added to a toleration's remaining time so that the seed is
// looked at when the toleration has surely run out.
const requeueSlack = 50 * time.Millisecond

// passRun is the state of one pass: its view, the hypothetical placements of
// its evictions, and its writers.
type passRun struct {
	d    *Descheduler
	ctx  context.Context
	log  klog.Logger
	once bool
	view *view
	// real counts the shoots as they will be after this pass's evictions.
	real *algorithm.Snapshot
	// fit additionally places every shoot waiting for a seed (evicted or
	// new) and every eviction of this pass where the algorithm would put it,
	// so that requireFit does not promise the same free slot twice. The
	// waiting shoots are placed when the first candidate asks (fitSnapshot):
	// a pass without candidates does not schedule them.
	fit      *algorithm.Snapshot
	reserved bool
	evicted  sets.Set[string]
	// leaving counts this pass's evictions still counted on their seed
	// through status.seedName.
	leaving map[string]int
	// later gathers when the pass's seeds are looked at again, scheduled
	// once when it ends; stopGen is the count of wakes the refusal that
	// stopped the pass saw.
	later   *requeues
	stopGen uint64
	// dry are the tickets of a dry-run pass's moves, given back when it
	// ends.
	dry []*ticket
	// sources are, on Gardener, the seeds this pass migrates control planes
	// off: like the view's evacuating seeds, they receive none.
	sources sets.Set[string]
	stop    bool
	// deferred counts the moves this pass left for a window or deadline.
	deferred int
	// passedOver counts the improving candidates this pass found no
	// improvement for, or cooling down: they are not moves to make;
	// fruitless those it found no improvement for.
	passedOver int
	fruitless  int
	// churnSpent are the improving plugins whose churn budget this pass
	// found spent.
	churnSpent sets.Set[string]

	// writers write the pass's evictions; nil in dry-run mode.
	writers moveWriter
}

// pass looks at the named seeds once: runs the plugins, applies the safety
// rules and writes the evictions with concurrentEvictions writers. once is
// set for the single pass of interval 0 (no requeues).
func (d *Descheduler) pass(ctx context.Context, seedNames []string, once bool) {
	start := d.clock.Now()
	defer func() { d.metrics.PassDuration.Observe(d.clock.Since(start).Seconds()) }()
	d.reportStuck(start)
	d.passOver(ctx, d.state.takeView(seedNames, start), once)
}

// passOver makes a pass over the seeds of a view.
func (d *Descheduler) passOver(ctx context.Context, v *view, once bool) {
	// Seeds no plugin acts on any more have nothing left to move.
	d.toMove.dropIdle(v.named, v.seeds)
	d.deferred.dropIdle(v.named, v.seeds)
	if len(v.seeds) == 0 {
		// No plugin acts on any of the seeds.
		return
	}
	r := &passRun{
		d: d, ctx: ctx, log: klog.FromContext(ctx), once: once, view: v,
		real: v.snapshot, fit: v.snapshot.Fork(),
		evicted: sets.New[string](), leaving: map[string]int{}, churnSpent: sets.New[string](),
		sources: sets.New[string](), later: newRequeues(), stopGen: d.gate.wakeGen(),
	}
	if d.sim != nil {
		r.writers = planWriter{d.sim}
	} else if w := d.ev.startWriters(ctx, r.later); w != nil {
		// Only a *writers that is there: nil (dry-run) stays a nil writer.
		r.writers = w
	}
	last := ""
	// Urgent moves first, on every seed, then the deferrable ones: a
	// budget spent on a move that could wait must not hold back one that
	// cannot.
	var deferrable []string
	for _, name := range sets.List(sets.KeySet(v.seeds)) {
		if r.stop || ctx.Err() != nil {
			r.later.hold(name, r.stopGen)
			continue
		}
		if r.seed(name, maintenance.Urgent) {
			deferrable = append(deferrable, name)
		}
		last = name
	}
	// The idle seeds are looked at in the urgent round alone.
	urgentStopped := r.stop || ctx.Err() != nil
	for _, name := range deferrable {
		if r.stop || ctx.Err() != nil {
			r.later.hold(name, r.stopGen)
			continue
		}
		r.seed(name, maintenance.Deferrable)
	}
	if urgentStopped {
		// The idle seeds the pass would have come to after the last one it
		// looked at are held back too, so that they are looked at again
		// when an evicted shoot is placed, as the others are.
		for _, name := range v.named {
			if _, taken := v.seeds[name]; taken || name <= last {
				continue
			}
			if _, known := v.snapshot.Seed(name); known {
				r.later.hold(name, r.stopGen)
			}
		}
	}
	if r.writers != nil {
		r.writers.finish()
	}
	for _, t := range r.dry {
		t.release(moved, nil)
	}
	r.later.schedule(d.gate, once)
}

// fitSnapshot returns fit, having reserved a seed for every shoot waiting
// for one first: they will take one.
func (r *passRun) fitSnapshot() *algorithm.Snapshot {
	if !r.reserved {
		r.reserved = true
		algorithm.ReserveForWaiting(r.fit, append(r.view.pending, r.view.waiting...), func(s *v1alpha1.Shoot) (algorithm.Inputs, error) {
			return r.d.inputs(s), nil
		})
	}
	return r.fit
}

// fitsElsewhere asks FitsElsewhere on fit. Before the waiting shoots are
// reserved it asks real first: fit counts at least as many shoots on every
// seed as real and nothing else differs, so a shoot that fits nowhere on real
// fits nowhere on fit, and a pass whose candidates all fit nowhere (a drain
// with no room left, woken by every binding) reserves nothing.
func (r *passRun) fitsElsewhere(shoot *v1alpha1.Shoot, in algorithm.Inputs, seed string) (string, error) {
	if !r.reserved {
		if _, err := algorithm.FitsElsewhere(shoot, r.real, in, seed); err != nil {
			return "", err
		}
	}
	return algorithm.FitsElsewhere(shoot, r.fitSnapshot(), in, seed)
}

// seed runs every plugin over one seed, each seeing the evictions of the
// plugins before it, and considers the candidates of one urgency in the
// order of ofUrgency. It reports, for the urgent round, whether a plugin wants a deferrable move.
func (r *passRun) seed(name string, urgency maintenance.Urgency) (deferrable bool) {
	base := r.view.seeds[name]
	if urgency == maintenance.Urgent {
		base.Seed = r.d.stampTaintClocks(r.ctx, base.Seed)
		if r.d.watcher != nil {
			r.d.watcher.looked(name)
		}
	}
	for _, p := range r.d.plugins {
		_, improving := p.(framework.ChurnLimited)
		if improving {
			if urgency == maintenance.Urgent {
				// Its moves can all wait: it is asked in the deferrable
				// round only.
				deferrable = true
				continue
			}
			if no := r.d.gate.churnRefusal(p.Name()); no != nil {
				// Its moves of the pass window or the hour are spent:
				// asking it would only cost.
				r.churnLimited(p.Name(), name, no)
				continue
			}
		}
		wants, stop := r.plugin(p, base, urgency, improving)
		deferrable = deferrable || wants
		if stop {
			return deferrable
		}
	}
	return deferrable
}

// plugin runs one plugin over a seed and considers its candidates of one
// urgency. It reports whether the plugin wants a move of the other
// urgency, and whether no further eviction from the seed may happen in this
// pass.
func (r *passRun) plugin(p framework.Plugin, base *framework.SeedState, urgency maintenance.Urgency, improving bool) (deferrable, stop bool) {
	name := base.Seed.Name
	st := *base
	if r.evicted.Len() > 0 {
		st.Shoots = make([]*v1alpha1.Shoot, 0, len(base.Shoots))
		for _, s := range base.Shoots {
			if !r.evicted.Has(algorithm.ShootKey(s)) {
				st.Shoots = append(st.Shoots, s)
			}
		}
	}
	st.Usage = r.real.Usage(name)
	st.Leaving = base.Leaving + r.leaving[name]
	res := p.Evaluate(&st)
	if res.RequeueAfter > 0 && (urgency == maintenance.Urgent || improving) {
		r.later.after(name, r.d.clock.Now().Add(res.RequeueAfter+requeueSlack))
	}
	candidates := ofUrgency(res.Candidates, urgency)
	// The plugin saw none of this pass's evictions, so every candidate
	// it evicts adds one to evicted; those after a stop stay.
	before, deferredBefore, passedBefore := r.evicted.Len(), r.deferred, r.passedOver
	stop, exhausted := r.candidates(p, st, candidates, res.Want)
	deferred, evicted := r.deferred-deferredBefore, r.evicted.Len()-before
	if urgency == maintenance.Deferrable || len(candidates) == len(res.Candidates) {
		// The urgent round leaves the count of a seed with deferrable
		// candidates to the deferrable round.
		r.d.deferred.set(name, p.Name(), deferred)
	}
	wanted := len(res.Candidates) - (r.passedOver - passedBefore)
	if res.Want > 0 {
		wanted = min(wanted, res.Want)
	}
	if exhausted {
		wanted = 0
	}
	r.d.toMove.set(name, p.Name(), max(0, wanted-evicted-deferred))
	return len(candidates) < len(res.Candidates), stop
}

// candidates considers a plugin's candidates in order, until it wants no
// more (want), a limit ends the seed's turn (stop), or the scheduler keeps
// sending them elsewhere than the plugin wants (exhausted).
func (r *passRun) candidates(p framework.Plugin, st framework.SeedState, candidates []framework.Candidate, want int) (stop, exhausted bool) {
	before, streak := r.evicted.Len(), 0
	for _, c := range candidates {
		if want > 0 && r.evicted.Len()-before >= want {
			// The alternatives are not needed.
			return false, false
		}
		fruitless := r.fruitless
		if sc := r.consider(p.Name(), st.Seed, c, stillWanted(p, st, c.Shoot)); sc != nextCandidate {
			return sc != endPlugin, false
		}
		if r.fruitless == fruitless {
			streak = 0
		} else if streak++; streak >= framework.MaxFruitless {
			// The scheduler sends this seed's shoots elsewhere than the
			// plugin wants; the others would most likely go there too,
			// and no limit holds them: none is left to move.
			return false, true
		}
	}
	return false, false
}

// ofUrgency returns the candidates of one urgency in the order the pass
// takes them (framework.OrderMoves of the plugin's order).
func ofUrgency(all []framework.Candidate, u maintenance.Urgency) []framework.Candidate {
	out := make([]framework.Candidate, 0, len(all))
	for _, c := range all {
		if c.Urgency == u {
			out = append(out, c)
		}
	}
	return framework.OrderMoves(out, func(c framework.Candidate) *v1alpha1.Shoot { return c.Shoot })
}

// consider asks the gate about one candidate and evicts it when admitted.
// It returns what a refusal ends of the pass, nextCandidate when nothing.
func (r *passRun) consider(plugin string, seed *v1alpha1.Seed, c framework.Candidate, recheck func(live *v1alpha1.Seed, shoot *v1alpha1.Shoot) bool) scope {
	if r.evicted.Has(algorithm.ShootKey(c.Shoot)) {
		return nextCandidate
	}
	t, no := r.d.gate.admit(moveRequest{plugin: plugin, seed: seed, candidate: c, placer: r})
	if no != nil {
		return r.refused(plugin, seed.Name, c.Shoot, no)
	}
	r.commit(eviction{shoot: c.Shoot, seed: seed, plugin: plugin, reason: c.Reason, cause: plugin + ": " + c.Cause, recheck: recheck, ticket: t})
	return nextCandidate
}

// refused reports a refusal, counts what it means for the pass and returns
// what it ends.
func (r *passRun) refused(plugin, seed string, shoot *v1alpha1.Shoot, no *refusal) scope {
	if no.kind == refusedChurn {
		r.churnLimited(plugin, seed, no)
		return no.scope()
	}
	r.d.ev.refusedMove(shoot, plugin, no)
	if r.d.watcher != nil {
		r.d.watcher.refused(plugin, seed, shoot, no)
	}
	r.later.refused(seed, no)
	switch no.kind {
	case refusedDeferred, refusedFailed:
		r.deferred++
	case refusedCoolingDown:
		r.passedOver++
	case refusedNotImproving:
		r.passedOver++
		r.fruitless++
	}
	if no.scope() == endPass {
		r.stop, r.stopGen = true, no.gen
	}
	return no.scope()
}

// commit counts an admitted move in the pass's snapshots and hands it to a
// writer (in dry-run mode, reports it). Updates, not adds: the pass's
// snapshots are forks (see takeView). A migrating shoot counts on both
// seeds until gardenlet finishes.
func (r *passRun) commit(e eviction) {
	r.evicted.Insert(algorithm.ShootKey(e.shoot))
	after := r.d.state.moves.Bound(e.target)
	if after != "" {
		// Bound elsewhere, its control plane leaves the seed.
		r.sources.Insert(e.seed.Name)
	}
	r.real.UpdateShoot(e.shoot, withSeed(e.shoot, after))
	r.fit.UpdateShoot(e.shoot, withSeed(e.shoot, e.target))
	if e.shoot.Status.SeedName != nil && *e.shoot.Status.SeedName == e.seed.Name {
		r.leaving[e.seed.Name]++
	}
	if r.d.watcher != nil {
		r.d.watcher.admitted(e)
	}
	if r.writers == nil {
		r.dry = append(r.dry, e.ticket)
		r.d.ev.wouldEvict(r.log.WithValues("shoot", klog.KObj(e.shoot), "seed", e.seed.Name, "plugin", e.plugin), e)
		return
	}
	r.writers.submit(e)
}

// place chooses where an admitted candidate goes (moveRequest.placer): an
// improving one where the scheduler would send it, if that improves; any
// other where it fits.
func (r *passRun) place(q moveRequest, mayGoLive bool) (placement, error) {
	c, from := q.candidate, q.seed
	in := r.d.inputs(c.Shoot)
	if r.view.evacuating.Len() > 0 || r.sources.Len() > 0 {
		// Asked of every seed a decision looks at: only when one is.
		in.Evacuating = r.evacuating
	}
	var p placement
	var err error
	if c.Improves != nil {
		var why string
		if p.target, p.live, why = r.improvement(c, from, in, mayGoLive); why != "" {
			err = errors.New(why)
		}
	} else {
		p.target, p.live, err = r.destination(c.Shoot, from, in, mayGoLive)
	}
	p.to, _ = r.real.Seed(p.target)
	return p, err
}

// destination chooses where the shoot goes: with live, first among the
// seeds that take its control plane live (algorithm.LiveMigrationBlocker),
// then, when none fits, among all.
func (r *passRun) destination(shoot *v1alpha1.Shoot, from *v1alpha1.Seed, in algorithm.Inputs, live bool) (string, bool, error) {
	if live {
		liveIn, regions := in, in.Regions()
		liveIn.Evacuating = func(name string) bool {
			if in.Evacuating != nil && in.Evacuating(name) {
				return true
			}
			to, ok := r.real.Seed(name)
			return !ok || algorithm.LiveMigrationBlocker(shoot, from, to, regions) != ""
		}
		if target, err := r.fitsElsewhere(shoot, liveIn, from.Name); err == nil {
			return target, true, nil
		}
	}
	target, err := r.fitsElsewhere(shoot, in, from.Name)
	return target, false, err
}

// improvement finds where an improving candidate would go now
// (framework.ImprovementTarget on the pass's fit snapshot); a choice control planes
// are leaving waits. With mayGoLive the move is live when GEP-39 allows it
// to that seed.
func (r *passRun) improvement(c framework.Candidate, from *v1alpha1.Seed, in algorithm.Inputs, mayGoLive bool) (target string, live bool, why string) {
	fit := r.fitSnapshot()
	target, why = framework.ImprovementTarget(c, from, fit, in)
	switch {
	case why != "":
		return "", false, why
	case r.evacuating(target):
		return "", false, "the scheduler would choose seed " + target + ", which control planes are leaving"
	}
	to, _ := fit.Seed(target)
	live = mayGoLive && algorithm.LiveMigrationBlocker(c.Shoot, from, to, in.Regions()) == ""
	return target, live, ""
}

// churnLimited counts, once a pass, that plugin has spent its churn
// limits, and looks at the seed again when a move leaves the hour.
func (r *passRun) churnLimited(plugin, seed string, no *refusal) {
	if !r.churnSpent.Has(plugin) {
		// Once a pass: the seeds it then passes by are not attempts.
		r.churnSpent.Insert(plugin)
		r.d.metrics.Evictions.WithLabelValues(plugin, ResultChurnLimited).Inc()
	}
	r.later.refused(seed, no)
}

// evacuating tells whether control planes are migrating off a seed (moves
// bound elsewhere leave it, on Gardener), by the view or by this pass: such
// a seed receives none.
func (r *passRun) evacuating(seed string) bool {
	return r.view.evacuating.Has(seed) || r.sources.Has(seed)
}

// stillWanted returns a check whether plugin, seeing the state of the pass
// with the seed replaced by a fresh read (and the shoot, when given, too),
// still picks shoot. The pass's view of the seed may be old (a lagging
// informer, a paused process), and a taint removed or allocatable raised
// since must not evict; nor, after a conflict, a toleration the shoot gained.
func stillWanted(plugin framework.Plugin, st framework.SeedState, shoot *v1alpha1.Shoot) func(*v1alpha1.Seed, *v1alpha1.Shoot) bool {
	key := algorithm.ShootKey(shoot)
	return func(live *v1alpha1.Seed, fresh *v1alpha1.Shoot) bool {
		again := st
		again.Seed = live
		if fresh != nil {
			again.Shoots = slices.Clone(st.Shoots)
			for i, s := range again.Shoots {
				if algorithm.ShootKey(s) == key {
					again.Shoots[i] = fresh
				}
			}
		}
		for _, c := range plugin.Evaluate(&again).Candidates {
			if algorithm.ShootKey(c.Shoot) == key {
				return true
			}
		}
		return false
	}
}
