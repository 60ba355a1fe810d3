package descheduler

import (
	"context"
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
	// dryPending counts dry-run evictions as if they were pending (or, on
	// Gardener, in flight), dryTo the dry-run migrations per destination.
	dryPending int
	dryTo      map[string]int
	dryIn      map[string]int
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
	writers *writers
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
		dryTo: map[string]int{}, dryIn: map[string]int{}, sources: sets.New[string](),
	}
	r.writers = d.ev.startWriters(ctx)
	last := ""
	// Urgent moves first, on every seed, then the deferrable ones: a
	// budget spent on a move that could wait must not hold back one that
	// cannot.
	var deferrable []string
	for _, name := range sets.List(sets.KeySet(v.seeds)) {
		if r.stop || ctx.Err() != nil {
			d.ev.hold(name)
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
			d.ev.hold(name)
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
				d.ev.hold(name)
			}
		}
	}
	r.writers.finish()
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
			if !r.churnAllows(p.Name(), name) {
				// Its moves of the pass window or the hour are spent:
				// asking it would only cost.
				continue
			}
		}
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
		if res.RequeueAfter > 0 && !r.once && (urgency == maintenance.Urgent || improving) {
			r.d.queue.AddAfter(name, res.RequeueAfter+requeueSlack)
		}
		candidates := ofUrgency(res.Candidates, urgency)
		deferrable = deferrable || len(candidates) < len(res.Candidates)
		// The plugin saw none of this pass's evictions, so every candidate
		// it evicts adds one to evicted; those after a stop stay.
		before, deferredBefore, passedBefore, stop := r.evicted.Len(), r.deferred, r.passedOver, false
		streak, exhausted := 0, false
		for _, c := range candidates {
			if res.Want > 0 && r.evicted.Len()-before >= res.Want {
				// The alternatives are not needed.
				break
			}
			if !r.churnAllows(p.Name(), name) {
				break
			}
			fruitless := r.fruitless
			if stop = !r.consider(p.Name(), base.Seed, c, stillWanted(p, st, c.Shoot)); stop {
				break
			}
			if r.fruitless == fruitless {
				streak = 0
			} else if streak++; streak >= framework.MaxFruitless {
				// The scheduler sends this seed's shoots elsewhere than the
				// plugin wants; the others would most likely go there too,
				// and no limit holds them: none is left to move.
				exhausted = true
				break
			}
		}
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
		if stop {
			return deferrable
		}
	}
	return deferrable
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

// consider applies the safety rules to one candidate and evicts it. It
// returns false when no further eviction from this seed may happen in this
// pass.
func (r *passRun) consider(plugin string, seed *v1alpha1.Seed, c framework.Candidate, recheck func(live *v1alpha1.Seed, shoot *v1alpha1.Shoot) bool) bool {
	d := r.d
	key := algorithm.ShootKey(c.Shoot)
	if r.evicted.Has(key) {
		return true
	}
	cause := plugin + ": " + c.Cause
	if d.ev.heldRepeat(c.Shoot, seed.Name, plugin, c.Reason, cause, !r.once) {
		return true
	}
	log := r.log.WithValues("shoot", klog.KObj(c.Shoot), "seed", seed.Name, "plugin", plugin)
	if c.Improves != nil {
		if until, cooling := d.ev.coolingDown(plugin, c.Shoot); cooling {
			r.log.V(2).Info("Shoot moved recently; an improving plugin leaves it alone", "shoot", klog.KObj(c.Shoot), "plugin", plugin, "until", until)
			d.metrics.Evictions.WithLabelValues(plugin, ResultCoolingDown).Inc()
			r.passedOver++
			return true
		}
	}
	timing := d.ev.timing(c)
	when := timing.at(d.clock.Now())
	// A move that can wait may still go now if it goes live between
	// gardenlets known to run the live flow (no downtime); the rest waits,
	// and a failed shoot's waits even for a live move: it would likely fail
	// as well and leave the tenant with no control plane. A live intent
	// without that evidence is sent when the move goes anyway: gardenlet
	// runs it as the classic migration it is timed as.
	mayGoLive := d.ev.liveWanted(c.Shoot) && !when.Held
	sameVersion := algorithm.GardenletVersion(seed)
	liveTimed := mayGoLive && d.ev.liveBlocker(sameVersion, sameVersion) == ""
	if !when.Now && !liveTimed {
		if mayGoLive {
			when.Why += "; not timed as live: " + d.ev.liveBlocker(sameVersion, sameVersion)
		}
		d.ev.wait(c.Shoot, seed.Name, plugin, c.Reason, cause, when, !r.once)
		r.deferred++
		return true
	}
	switch d.ev.admit(log, plugin, seed.Name, c.Shoot.Namespace, r.dryPending, r.dryIn[c.Shoot.Namespace]) {
	case budgetSpent:
		return false
	case tooManyPending:
		r.stop = true
		return false
	case projectFull:
		return true
	}
	in := d.inputs(c.Shoot)
	migrating := d.state.migrations
	if migrating {
		in.Evacuating = r.evacuating
	}
	var target string
	var live bool
	if c.Improves != nil {
		var why string
		if target, live, why = r.improvement(c, seed, in, mayGoLive); why != "" {
			d.ev.notImproving(log, seed.Name, plugin, why)
			r.passedOver++
			r.fruitless++
			return true
		}
	} else {
		var err error
		target, live, err = r.destination(c.Shoot, seed, in, mayGoLive)
		// A migration needs a destination: requireFit holds on Gardener whatever
		// the configuration or the plugin say.
		if err != nil && (migrating || *d.cfg.RequireFit && !c.Force) {
			d.ev.noFit(c.Shoot, seed.Name, plugin, c.Reason, cause, err)
			return true
		}
	}
	to, _ := r.real.Seed(target)
	if live && liveTimed {
		if why := d.ev.liveBlocker(algorithm.GardenletVersion(seed), algorithm.GardenletVersion(to)); why != "" {
			liveTimed = false
			when.Why += "; not timed as live: " + why
		}
	}
	if live && liveTimed {
		timing.live = true
	} else if !when.Now {
		// No seed takes the control plane live between gardenlets known to
		// run the live flow: it waits for its window.
		d.ev.returnBudget(seed.Name)
		d.ev.deferred(c.Shoot, seed.Name, plugin, c.Reason, cause, when, !r.once)
		r.deferred++
		return true
	}
	if migrating {
		switch d.ev.migrationSlot(log, plugin, seed.Name, target, r.dryPending, r.dryTo[target]) {
		case gardenFull:
			r.stop = true
			return false
		case destinationFull:
			return true
		}
		r.sources.Insert(seed.Name)
	}
	r.evicted.Insert(key)
	if c.Improves != nil {
		d.ev.spendChurn(plugin, d.clock.Now())
	}
	// Updates, not adds: the pass's snapshots are forks (see takeView). A
	// migrating shoot counts on both seeds until gardenlet finishes.
	after := ""
	if migrating {
		after = target
	}
	r.real.UpdateShoot(c.Shoot, withSeed(c.Shoot, after))
	r.fit.UpdateShoot(c.Shoot, withSeed(c.Shoot, target))
	if c.Shoot.Status.SeedName != nil && *c.Shoot.Status.SeedName == seed.Name {
		r.leaving[seed.Name]++
	}
	e := eviction{shoot: c.Shoot, seed: seed, plugin: plugin, reason: c.Reason, cause: cause, target: target, recheck: recheck, timing: timing, live: live, to: to}
	if r.writers == nil {
		r.dryPending++
		r.dryTo[target]++
		r.dryIn[c.Shoot.Namespace]++
		d.ev.wouldEvict(log, e)
		return true
	}
	r.writers.submit(e)
	return true
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
	case r.d.state.migrations && r.evacuating(target):
		return "", false, "the scheduler would choose seed " + target + ", which control planes are leaving"
	}
	to, _ := fit.Seed(target)
	live = mayGoLive && algorithm.LiveMigrationBlocker(c.Shoot, from, to, in.Regions()) == ""
	return target, live, ""
}

// churnAllows tells whether plugin may still move shoots in this pass by
// its churn limits; when the hour's budget is spent, the seed is looked at
// again once a move leaves the hour.
func (r *passRun) churnAllows(plugin, seed string) bool {
	spent, freeAt := r.d.ev.churnSpent(plugin)
	if !spent {
		return true
	}
	if !r.churnSpent.Has(plugin) {
		// Once a pass: the seeds it then passes by are not attempts.
		r.churnSpent.Insert(plugin)
		r.d.metrics.Evictions.WithLabelValues(plugin, ResultChurnLimited).Inc()
	}
	if !freeAt.IsZero() && !r.once {
		r.d.queue.AddAfter(seed, freeAt.Sub(r.d.clock.Now())+requeueSlack)
	}
	return false
}

// evacuating tells, on Gardener, whether control planes are migrating off a
// seed, by the view or by this pass: such a seed receives none.
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
