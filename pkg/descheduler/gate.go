package descheduler

import (
	"errors"
	"fmt"
	"maps"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/algorithm"
	"github.com/graft-dev/graft/pkg/descheduler/framework"
	"github.com/graft-dev/graft/pkg/maintenance"
)

// gate owns every rule that says whether a move may start now and every
// budget a move takes: the repeat guard, the improving plugins' cool-down
// and churn limits, urgency, maintenance windows, deadlines and live
// timing, the pass window's budgets (maxEvictionsPerSeed,
// maxEvictionsTotal), maxPendingEvicted, the projects' budgets, the
// migration slots garden-wide and per destination, and the token bucket
// the writes wait for. admit answers a candidate with a ticket or a typed
// refusal; a ticket gives back what it took exactly once (ticket.release).
type gate struct {
	cfg     *configv1alpha1.DeschedulerConfiguration
	clock   clock.Clock
	state   *state
	metrics *Metrics
	queue   seedQueue
	limiter *rate.Limiter
	// records are the evictor's: the repeat guard and the cool-down trust
	// only the records it signed.
	records *recordKey
	churn   churnLimits
	// live is what is known of live migrations (the evictor learns it).
	live liveTiming

	mu sync.Mutex
	// perSeed and total count the moves of the current pass window.
	perSeed map[string]int
	total   int
	// waiting are seeds held back until a move finishes or placements
	// change; wakes counts the wakes, so that a hold asked before one is
	// not missed (hold).
	waiting sets.Set[string]
	wakes   uint64
	// asked is, per shoot and cause, when a deferrable move without a
	// deadline was first and last looked at (firstAsked).
	asked map[string]asked
	// churnPass counts the improving plugins' moves in the pass window,
	// churnHour their moves' times in the last hour, oldest first.
	churnPass map[string]int
	churnHour map[string][]time.Time
	// movedAt is when this process last moved each shoot (by key), for the
	// cool-down; forgotten when the shoot is deleted.
	movedAt map[string]time.Time
	// dry counts the moves a dry-run pass admitted as if they were in
	// flight, until the pass ends.
	dry dryMoves
}

// seedQueue is where seeds are queued to be looked at (again): the
// descheduler's workqueue, or a planner's agenda.
type seedQueue interface {
	Add(seed string)
	AddAfter(seed string, d time.Duration)
}

// liveTiming is what the gate asks about live migrations.
type liveTiming interface {
	// liveWanted tells whether the shoot's control plane should move live.
	liveWanted(shoot *v1alpha1.Shoot) bool
	// liveBlocker says why a move between gardenlet versions is not timed
	// as live; "" when it is.
	liveBlocker(from, to string) string
}

// dryMoves are a dry-run pass's admitted moves: in total, per destination
// and per namespace.
type dryMoves struct {
	total int
	to    map[string]int
	in    map[string]int
}

func newGate(cfg *configv1alpha1.DeschedulerConfiguration, clk clock.Clock, st *state, m *Metrics, q seedQueue, records *recordKey, churn churnLimits, live liveTiming) *gate {
	return &gate{
		cfg: cfg, clock: clk, state: st, metrics: m, queue: q, limiter: newLimiter(cfg), records: records, churn: churn, live: live,
		perSeed: map[string]int{}, waiting: sets.New[string](), asked: map[string]asked{},
		churnPass: map[string]int{}, churnHour: map[string][]time.Time{}, movedAt: map[string]time.Time{},
		dry: dryMoves{to: map[string]int{}, in: map[string]int{}},
	}
}

// moveRequest is a candidate the pass asks the gate to move.
type moveRequest struct {
	plugin    string
	seed      *v1alpha1.Seed
	candidate framework.Candidate
	placer    placer
}

// placer chooses where a move sends its shoot, asked only once the cheaper
// rules let it through; with mayGoLive first among the seeds that take it
// live. An improving candidate's error says why it does not improve.
type placer interface {
	place(q moveRequest, mayGoLive bool) (placement, error)
}

// placement is where a move sends a shoot: target "" is nowhere chosen.
type placement struct {
	target string
	to     *v1alpha1.Seed
	live   bool
}

func (q moveRequest) cause() string { return q.plugin + ": " + q.candidate.Cause }

func (q moveRequest) improving() bool { return q.candidate.Improves != nil }

// admit applies every rule to one move, in the order of their cost, and
// takes its budgets when all let it through.
func (g *gate) admit(q moveRequest) (*ticket, *refusal) {
	gen := g.wakeGen()
	c, seed := q.candidate, q.seed.Name
	if q.improving() {
		if no := g.churnRefusal(q.plugin); no != nil {
			return nil, no
		}
	}
	if until, held := g.evictedBefore(c.Shoot, seed, q.cause()); held {
		return nil, g.repeatRefusal(q, until)
	}
	if until, cooling := g.coolingDown(q.plugin, c.Shoot); q.improving() && cooling {
		return nil, &refusal{kind: refusedCoolingDown, why: "the shoot moved recently, until " + until.UTC().Format(time.RFC3339)}
	}
	timing := g.timing(c)
	when := timing.at(g.clock.Now())
	// A move that can wait may still go now if it goes live between
	// gardenlets known to run the live flow (no downtime); the rest waits,
	// and a failed shoot's waits even for a live move: it would likely fail
	// as well and leave the tenant with no control plane. A live intent
	// without that evidence is sent when the move goes anyway: gardenlet
	// runs it as the classic migration it is timed as.
	mayGoLive := g.live.liveWanted(c.Shoot) && !when.Held
	sameVersion := algorithm.GardenletVersion(q.seed)
	liveTimed := mayGoLive && g.live.liveBlocker(sameVersion, sameVersion) == ""
	if !when.Now && !liveTimed {
		if mayGoLive {
			when.Why += "; not timed as live: " + g.live.liveBlocker(sameVersion, sameVersion)
		}
		return nil, deferral(q, when)
	}
	if no := g.budgets(seed, c.Shoot.Namespace, gen); no != nil {
		return nil, no
	}
	p, no := g.destination(q, mayGoLive, gen)
	if no != nil {
		return nil, no
	}
	if p.live && liveTimed {
		if why := g.live.liveBlocker(sameVersion, algorithm.GardenletVersion(p.to)); why != "" {
			liveTimed = false
			when.Why += "; not timed as live: " + why
		}
	}
	timing.live = p.live && liveTimed
	if !timing.live && !when.Now {
		// No seed takes the control plane live between gardenlets known to
		// run the live flow: it waits for its window.
		return nil, deferral(q, when)
	}
	if no := g.migrationSlot(p.target, gen); no != nil {
		return nil, no
	}
	return g.take(q, p, timing), nil
}

// destination asks the request where the shoot goes. A migration needs a
// destination: requireFit holds on Gardener whatever the configuration or
// the plugin say.
func (g *gate) destination(q moveRequest, mayGoLive bool, gen uint64) (placement, *refusal) {
	p, err := q.placer.place(q, mayGoLive)
	switch {
	case err == nil:
		return p, nil
	case q.improving():
		return p, &refusal{kind: refusedNotImproving, why: err.Error(), wake: true, gen: gen}
	case g.state.moves.Migrates() || *g.cfg.RequireFit && !q.candidate.Force:
		// A migration needs its destination.
		return p, noFitRefusal(q, err, gen)
	}
	return placement{}, nil
}

// budgets checks the pass window's budgets, maxPendingEvicted and the
// budget of the shoot's project, counting a dry-run pass's moves.
func (g *gate) budgets(seed, namespace string, gen uint64) *refusal {
	g.mu.Lock()
	spent := g.spentLocked(seed)
	dry, dryIn := g.dry.total, g.dry.in[namespace]
	g.mu.Unlock()
	if spent {
		return &refusal{kind: refusedBudget, why: fmt.Sprintf("the pass window's budget is used up (maxEvictionsPerSeed %d, maxEvictionsTotal %d)", *g.cfg.MaxEvictionsPerSeed, *g.cfg.MaxEvictionsTotal)}
	}
	now := g.clock.Now()
	if m := int(*g.cfg.MaxPendingEvicted); m > 0 && g.state.pendingCount(now)+dry >= m {
		return &refusal{kind: refusedPending, why: fmt.Sprintf("maxPendingEvicted (%d) evicted shoots wait for a seed", m), wake: true, gen: gen}
	}
	if m := g.projectBudget(namespace); m > 0 && g.state.movesInFlightIn(namespace, now)+dryIn >= m {
		return &refusal{kind: refusedProject, why: fmt.Sprintf("project namespace %s has its budget of %d moves in flight", namespace, m), wake: true, gen: gen}
	}
	return nil
}

func (g *gate) spentLocked(seed string) bool {
	if m := int(*g.cfg.MaxEvictionsPerSeed); m > 0 && g.perSeed[seed] >= m {
		return true
	}
	m := int(*g.cfg.MaxEvictionsTotal)
	return m > 0 && g.total >= m
}

// projectBudget is how many moves of the namespace's shoots may be in
// flight at once: its projectBudgets entry, or maxMovesInFlightPerProject;
// 0 means no limit.
func (g *gate) projectBudget(namespace string) int {
	for _, b := range g.cfg.ProjectBudgets {
		if b.Namespace == namespace {
			return int(b.MaxMovesInFlight)
		}
	}
	return int(ptr.Deref(g.cfg.MaxMovesInFlightPerProject, 0))
}

// migrationSlot checks the migrations in flight in the garden and to the
// destination, whoever started them (none where moves do not migrate).
func (g *gate) migrationSlot(target string, gen uint64) *refusal {
	// The stuck ones are counted for graft_descheduler_migrations_stuck by
	// reportStuck alone, at the start of each pass.
	total, to, _ := g.state.migrationsInFlight(target, g.clock.Now())
	g.metrics.MigrationsInFlight.Set(float64(total))
	g.mu.Lock()
	total, to = total+g.dry.total, to+g.dry.to[target]
	g.mu.Unlock()
	if m := ptr.Deref(g.cfg.MaxMigrationsInFlight, 0); m > 0 && total >= int(m) {
		return &refusal{kind: refusedGardenFull, why: fmt.Sprintf("maxMigrationsInFlight (%d) control-plane migrations are in flight", m), wake: true, gen: gen}
	}
	if m := ptr.Deref(g.cfg.MaxMigrationsInFlightPerSeed, 0); m > 0 && to >= int(m) {
		return &refusal{kind: refusedDestinationFull, why: fmt.Sprintf("maxMigrationsInFlightPerSeed (%d) control-plane migrations are in flight to seed %s", m, target), wake: true, gen: gen}
	}
	return nil
}

// take gives a move its ticket: one of the pass window's budgets, one move
// in flight (the pass's own count in dry-run mode) and, for an improving
// plugin, one of its churn limits. A move dropped later still counts
// against the churn limits: they err on the side of fewer moves.
func (g *gate) take(q moveRequest, p placement, timing moveTiming) *ticket {
	t := &ticket{g: g, from: q.seed.Name, flight: flight{namespace: q.candidate.Shoot.Namespace}, dry: g.cfg.DryRun, placement: p, timing: timing}
	t.flight.target = g.state.moves.Bound(p.target)
	now := g.clock.Now()
	g.mu.Lock()
	g.perSeed[t.from]++
	g.total++
	if _, limited := g.churn[q.plugin]; limited && q.improving() {
		g.churnPass[q.plugin]++
		g.churnHour[q.plugin] = append(g.churnHour[q.plugin], now)
	}
	if t.dry {
		g.dry.total++
		g.dry.to[t.flight.target]++
		g.dry.in[t.flight.namespace]++
	}
	g.mu.Unlock()
	if !t.dry {
		g.state.addInflight(t.flight, 1)
	}
	return t
}

// ticket is an admitted move: what it took from the gate, given back once.
type ticket struct {
	g *gate
	// from is the seed the move leaves.
	from   string
	flight flight
	dry    bool
	placement
	// timing is when the move may happen, asked again right before the
	// write: a wait for the token bucket must not carry a deferrable move
	// past the end of its window.
	timing   moveTiming
	released atomic.Bool
}

// outcome is how an admitted move ended.
type outcome int

const (
	// dropped: nothing was written; the move gives its budget back.
	dropped outcome = iota
	// failed: a write was sent and failed; the pass window's budget stays
	// spent, so that a failing API server is not asked again at once.
	failed
	// moved: the move was written (or, in dry-run mode, would be); the
	// informers now count it in flight.
	moved
)

// release gives back what the ticket took, by the move's outcome: the move
// in flight always (settled with the written shoot when moved, so that the
// count does not dip before the informer shows it), the pass window's
// budget when dropped. A second release does nothing.
func (t *ticket) release(o outcome, written *v1alpha1.Shoot) {
	if !t.released.CompareAndSwap(false, true) {
		return
	}
	g := t.g
	g.mu.Lock()
	if o == dropped {
		g.perSeed[t.from]--
		g.total--
	}
	if t.dry {
		g.dry.total--
		g.dry.to[t.flight.target]--
		g.dry.in[t.flight.namespace]--
	}
	if o == moved && !t.dry {
		g.movedAt[algorithm.ShootKey(written)] = g.clock.Now()
	}
	g.mu.Unlock()
	switch {
	case t.dry:
	case o == moved:
		g.state.settleEviction(written, g.clock.Now(), t.flight)
	default:
		g.state.addInflight(t.flight, -1)
	}
}

// refusalKind is why the gate refuses a move.
type refusalKind int

const (
	refusedChurn refusalKind = iota
	refusedRepeat
	refusedCoolingDown
	refusedFailed
	refusedDeferred
	refusedBudget
	refusedPending
	refusedProject
	refusedNoFit
	refusedLimitedStay
	refusedNotImproving
	refusedGardenFull
	refusedDestinationFull
)

// scope is what a refusal ends in a pass.
type scope int

const (
	// nextCandidate: the pass goes on with the next candidate.
	nextCandidate scope = iota
	// endPlugin: the plugin's candidates on the seed.
	endPlugin
	// endSeed: the seed's candidates in this pass.
	endSeed
	// endPass: the pass; the seeds it did not come to are held back.
	endPass
)

// refusals are each kind's result label (graft_descheduler_evictions_total)
// and scope.
var refusals = [...]struct {
	result string
	scope  scope
}{
	refusedChurn:           {ResultChurnLimited, endPlugin},
	refusedRepeat:          {ResultHeldRepeat, nextCandidate},
	refusedCoolingDown:     {ResultCoolingDown, nextCandidate},
	refusedFailed:          {ResultSkippedFailed, nextCandidate},
	refusedDeferred:        {ResultDeferred, nextCandidate},
	refusedBudget:          {ResultBudgetSpent, endSeed},
	refusedPending:         {ResultWaitingForPending, endPass},
	refusedProject:         {ResultWaitingForProject, nextCandidate},
	refusedNoFit:           {ResultSkippedNoFit, nextCandidate},
	refusedLimitedStay:     {ResultSkippedLimitedStay, nextCandidate},
	refusedNotImproving:    {ResultNotImproving, nextCandidate},
	refusedGardenFull:      {ResultWaitingForMigrations, endPass},
	refusedDestinationFull: {ResultWaitingForMigrations, nextCandidate},
}

// refusal is the gate's typed answer to a move that may not start now.
type refusal struct {
	kind refusalKind
	// why says what holds the move, for the log.
	why string
	// at is when the seed is looked at again for it; zero for none.
	at time.Time
	// wake holds the seed back until a move finishes or placements change;
	// gen is the count of wakes when the gate checked (hold).
	wake bool
	gen  uint64
	// event is the Event on the shoot, if any: its reason, type, message,
	// and what of it stays the same from pass to pass (ev.note).
	event, eventType, msg, same string
}

func (r *refusal) result() string { return refusals[r.kind].result }

func (r *refusal) scope() scope { return refusals[r.kind].scope }

func (r *refusal) Error() string { return r.result() + ": " + r.why }

// repeatRefusal holds a move back by the repeat guard until until.
func (g *gate) repeatRefusal(q moveRequest, until time.Time) *refusal {
	c := q.candidate
	return &refusal{kind: refusedRepeat, why: "evicted from the seed for the same cause recently", at: until.Add(requeueSlack),
		event: EventEvictionSkipped, eventType: corev1.EventTypeWarning, same: q.seed.Name + "|" + q.cause() + "|" + until.String(),
		msg: fmt.Sprintf("%s wants the shoot off seed %s (%s), but it was evicted from that seed for the same cause (%s) less than %s ago: held until %s, so that it does not move back and forth",
			q.plugin, q.seed.Name, c.Reason, q.cause(), g.repeatWindow(), until.UTC().Format(time.RFC3339))}
}

// noFitRefusal leaves a candidate in place because requireFit found no
// other seed (err says why), until a move finishes or placements change.
func noFitRefusal(q moveRequest, err error, gen uint64) *refusal {
	kind, why := refusedNoFit, "no other seed fits"
	var se *algorithm.ScheduleError
	if errors.As(err, &se) && se.Filter == algorithm.FilterLimitedToleration {
		// Moving would only trade one limited stay for another.
		kind, why = refusedLimitedStay, "the seeds that fit elsewhere would let it stay only for a limited time, so it stays"
	}
	why += ": " + algorithm.ShortReason(err) + algorithm.MigrationReasons(err)
	return &refusal{kind: kind, why: why, wake: true, gen: gen,
		event: EventEvictionSkipped, eventType: corev1.EventTypeWarning, same: q.seed.Name + "|" + q.cause() + "|" + algorithm.StableReason(err),
		msg: fmt.Sprintf("%s wants the shoot off seed %s (%s), but %s", q.plugin, q.seed.Name, q.candidate.Reason, why)}
}

// newWindow starts a new pass window: the per-pass budgets start over.
func (g *gate) newWindow() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.perSeed = map[string]int{}
	g.total = 0
	g.churnPass = map[string]int{}
	// A move not looked at for two days is over (firstAsked renews one a
	// MaxDeferral later anyway): forget it.
	now := g.clock.Now()
	maps.DeleteFunc(g.asked, func(_ string, a asked) bool { return now.Sub(a.last) > 48*time.Hour })
}

// wakeDelay gathers the wakes of held seeds: a pass reserves a seed for every
// waiting shoot first, so one pass per binding of a busy garden kept a core
// busy; the seeds wait this long for the changes that follow.
const wakeDelay = time.Second

// wakeWaiting queues the held seeds after wakeDelay: a move finished or
// placements changed.
func (g *gate) wakeWaiting() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.wakes++
	for name := range g.waiting {
		g.queue.AddAfter(name, wakeDelay)
	}
	g.waiting.Clear()
}

func (g *gate) wakeGen() uint64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.wakes
}

// hold holds seeds back until the next wake; when one came since the gate
// checked (gen), they are looked at again at once, as that wake would have.
func (g *gate) hold(seeds sets.Set[string], gen uint64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.wakes == gen {
		g.waiting = g.waiting.Union(seeds)
		return
	}
	for name := range seeds {
		g.queue.AddAfter(name, wakeDelay)
	}
}

// forget drops what the gate remembers of a deleted shoot.
func (g *gate) forget(key string) {
	g.mu.Lock()
	delete(g.movedAt, key)
	g.mu.Unlock()
}

// requeues are when a pass must look at its seeds again, gathered while it
// runs (its writers too) and scheduled once when it ends.
type requeues struct {
	mu   sync.Mutex
	at   map[string]time.Time
	held sets.Set[string]
	// gen is the count of wakes when the first hold was asked.
	gen     uint64
	holding bool
}

func newRequeues() *requeues {
	return &requeues{at: map[string]time.Time{}, held: sets.New[string]()}
}

// after looks at seed again at at; the earliest time asked wins.
func (l *requeues) after(seed string, at time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if old, ok := l.at[seed]; !ok || at.Before(old) {
		l.at[seed] = at
	}
}

// hold holds seed back until the next wake after gen.
func (l *requeues) hold(seed string, gen uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.held.Insert(seed)
	if !l.holding || gen < l.gen {
		l.gen, l.holding = gen, true
	}
}

// refused looks at seed again as the refusal asks.
func (l *requeues) refused(seed string, no *refusal) {
	if !no.at.IsZero() {
		l.after(seed, no.at)
	}
	if no.wake {
		l.hold(seed, no.gen)
	}
}

// schedule queues the seeds to look at again (none after a single pass,
// once) and holds the held ones back.
func (l *requeues) schedule(g *gate, once bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !once {
		now := g.clock.Now()
		for seed, at := range l.at {
			g.queue.AddAfter(seed, at.Sub(now))
		}
	}
	if l.holding {
		g.hold(l.held, l.gen)
	}
}

// deferral leaves a move that may not happen now for later (timingRefusal).
func deferral(q moveRequest, when maintenance.When) *refusal {
	return timingRefusal(q.plugin, q.seed.Name, q.candidate.Reason, q.cause(), q.candidate.Shoot, when)
}

// timingRefusal leaves a move that may not happen now for later: held for a
// failed shoot, deferred otherwise.
func timingRefusal(plugin, seed, reason, cause string, shoot *v1alpha1.Shoot, when maintenance.When) *refusal {
	if when.Held {
		return heldFailed(plugin, seed, reason, cause, shoot, when)
	}
	return deferred(plugin, seed, reason, cause, when)
}
