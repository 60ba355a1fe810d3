package descheduler

import (
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"
	"github.com/graft-dev/graft/pkg/algorithm"
	"github.com/graft-dev/graft/pkg/component/ownwrites"
	"github.com/graft-dev/graft/pkg/descheduler/framework"
	"github.com/graft-dev/graft/pkg/garden"
	"github.com/graft-dev/graft/pkg/taintclock"
)

// state is the descheduler's view of the garden, fed by informers and by the
// descheduler's own successful writes (so that a pass never acts on a state
// older than what it wrote). It is safe for concurrent use.
type state struct {
	mu sync.Mutex
	// snapshot holds seeds and usage counts by the shared rule.
	snapshot *algorithm.Snapshot
	// shoots is the latest shoot object per namespace/name.
	shoots map[string]*v1alpha1.Shoot
	// onSeed indexes shoots by spec.seedName.
	onSeed map[string]sets.Set[string]
	// leaving indexes shoots by status.seedName when it differs from spec.seedName.
	leaving map[string]sets.Set[string]
	// deleting counts, per spec.seedName, the shoots of onSeed being
	// deleted, so that a seed's leaving shoots are known without its shoots.
	deleting map[string]int
	// regions counts, per spec.seedName, the shoots of onSeed by their
	// region, so that the shoots of another region than the seed's are
	// known without its shoots (framework.SeedState.Away).
	regions map[string]map[string]int
	// pending are the shoots this descheduler evicted (by their eviction
	// record, see algorithm.EvictionRecorded) that have no seed yet.
	pending sets.Set[string]
	// waiting are the other shoots without a seed (new ones, or ones whose
	// seed someone else cleared), not being deleted: the scheduler will give
	// each a slot, so requireFit must not promise those slots again.
	waiting sets.Set[string]
	// schedulers are the scheduler names whose shoots count in pending and
	// waiting: a shoot no known scheduler places takes no slot, and a
	// tenant's shoot naming no scheduler cannot hold evictions back.
	schedulers sets.Set[string]
	// written are the descheduler's evictions until the informer delivers
	// them; older informer events are ignored.
	written *ownwrites.Tracker[*v1alpha1.Shoot]
	// seedWritten is the same for its own seed writes (the timeAdded stamps).
	seedWritten *ownwrites.Tracker[*v1alpha1.Seed]
	// taintSeen is when this process first saw each NoExecute taint, per seed.
	// A toleration counts from the taint's timeAdded; the sighting is only the
	// fallback for a taint without one until the descheduler's stamp lands (or
	// for good in dry-run mode, which writes nothing, or when the stamp cannot
	// be written), and it is the time the stamp records.
	taintSeen map[string]map[string]time.Time
	// arrived is when a shoot came to its current spec.seedName, as far as
	// this process knows (see setShootLocked).
	arrived map[string]arrival
	// inflight counts evictions being written, inflightBound those of them
	// bound to a destination (migrations), inflightTo these by destination,
	// inflightIn all of them by namespace.
	inflight      int
	inflightBound int
	inflightTo    map[string]int
	inflightIn    map[string]int
	// stuckReported are the stuck moves a MoveStuck Event was emitted for,
	// by shoot and the time the move was first seen.
	stuckReported map[string]time.Time
	// moves is what a move is on the API (garden.Moves): a shoot whose
	// move is in flight is not moved again.
	moves garden.Moves
	// moving is, per shoot whose move is in flight as the API shows it
	// (garden.Moves.InFlight), its destination ("" while the scheduler
	// chooses) and when this process first saw it in flight there: a move
	// in flight longer than migrationTimeout (0: never by time) is stuck, as
	// is one that failed. A stuck move counts against no budget and closes
	// no seed (see stuckLocked). arriving indexes those with a destination
	// by it.
	moving           map[string]arrival
	arriving         map[string]sets.Set[string]
	migrationTimeout time.Duration
	// movable are the scheduler names whose shoots may be moved; nil: every
	// shoot's.
	movable sets.Set[string]

	// actsOn tells, from a seed's own facts (Seed, Usage, Leaving, Now of
	// the state), whether some plugin may act on the seed; nil means every
	// seed may. A view copies the shoots only of the seeds it accepts. It is
	// called with mu held, so that the facts are those the pass then sees.
	actsOn func(*framework.SeedState) bool
	// spread is set when an improving plugin runs, before the informers
	// start: the state then counts each seed's shoots by region, and views
	// carry the utilisation spreads and the shoots away from their region
	// (framework.SeedState.Landscape, Region, Away).
	spread bool

	// onPendingDrop is called (without the lock) when a pending shoot got a
	// seed or went away.
	onPendingDrop func()
	// onPendingChange reports the number of pending shoots, for the gauge.
	onPendingChange func(int)
}

type arrival struct {
	seed string
	at   time.Time
}

func newState() *state {
	return &state{
		snapshot:      algorithm.NewSnapshot(),
		shoots:        map[string]*v1alpha1.Shoot{},
		onSeed:        map[string]sets.Set[string]{},
		leaving:       map[string]sets.Set[string]{},
		arriving:      map[string]sets.Set[string]{},
		moving:        map[string]arrival{},
		moves:         garden.Graft.Moves(),
		inflightTo:    map[string]int{},
		inflightIn:    map[string]int{},
		stuckReported: map[string]time.Time{},
		deleting:      map[string]int{},
		regions:       map[string]map[string]int{},
		pending:       sets.New[string](),
		waiting:       sets.New[string](),
		schedulers:    sets.New(v1alpha1.DefaultSchedulerName),
		written:       ownwrites.New[*v1alpha1.Shoot](),
		seedWritten:   ownwrites.New[*v1alpha1.Seed](),
		taintSeen:     map[string]map[string]time.Time{},
		arrived:       map[string]arrival{},
	}
}

func taintID(t v1alpha1.SeedTaint) string { return helper.FormatTaint(t) }

// setSeed records a seed seen by the informer and the first sighting of its
// NoExecute taints. It returns whether what the plugins look at (taints with
// their timeAdded, allocatable) changed.
func (st *state) setSeed(old, seed *v1alpha1.Seed, now time.Time) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.setSeedLocked(old, seed, now, false)
}

// setOwnSeed records a seed the descheduler wrote, so that a pass does not
// act on the older version the informer may still deliver.
func (st *state) setOwnSeed(seed *v1alpha1.Seed, now time.Time) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.setSeedLocked(nil, seed, now, true)
}

func (st *state) setSeedLocked(old, seed *v1alpha1.Seed, now time.Time, own bool) bool {
	if own && !st.seedWritten.Wrote(seed.Name, seed) || !own && st.seedWritten.Observe(seed.Name, seed.ResourceVersion) {
		// An older write of our own, or the informer has not caught up
		// with our own write yet.
		return false
	}
	prev, had := st.snapshot.Seed(seed.Name)
	st.snapshot.UpdateSeed(old, seed)
	seen := st.taintSeen[seed.Name]
	next := map[string]time.Time{}
	for _, t := range seed.Spec.Taints {
		if helper.TaintEffectOf(t) != v1alpha1.TaintEffectNoExecute {
			continue
		}
		id := taintID(t)
		if at, ok := seen[id]; ok {
			next[id] = at
		} else {
			next[id] = now
		}
	}
	st.taintSeen[seed.Name] = next
	if !had {
		return true
	}
	// Both sides stamped with this process's sightings: the informer's copy
	// of our own timeAdded stamp, delivered before the patch returned,
	// changes no toleration's clock.
	sighted := func(t v1alpha1.SeedTaint) time.Time { return next[taintID(t)] }
	before, _ := taintclock.Stamp(prev.Spec.Taints, sighted)
	after, _ := taintclock.Stamp(seed.Spec.Taints, sighted)
	return !taintclock.Equal(before, after) ||
		!prev.Status.Allocatable[v1alpha1.ResourceShoots].Equal(seed.Status.Allocatable[v1alpha1.ResourceShoots])
}

// sighting returns when this process first saw each NoExecute taint of the
// named seed; a taint it has not seen yet (read fresh from the API server) is
// seen at now.
func (st *state) sighting(seedName string, now time.Time) func(v1alpha1.SeedTaint) time.Time {
	st.mu.Lock()
	seen := maps.Clone(st.taintSeen[seedName])
	st.mu.Unlock()
	return func(t v1alpha1.SeedTaint) time.Time {
		if at, ok := seen[taintID(t)]; ok {
			return at
		}
		return now
	}
}

func (st *state) removeSeed(name string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.snapshot.RemoveSeedByName(name)
	delete(st.taintSeen, name)
	st.seedWritten.Forget(name)
}

// setShoot records a shoot seen by the informer (own=false) or written by the
// descheduler (own=true).
func (st *state) setShoot(s *v1alpha1.Shoot, now time.Time, own bool) {
	st.applyShoot(s, now, own, 0, flight{})
}

// flight is what an eviction being written counts against: its shoot's
// namespace, and on Gardener its destination ("" elsewhere).
type flight struct {
	namespace string
	target    string
}

// settleEviction records a written eviction and, in the same step, ends its
// inflight count, so that it is never counted twice nor not at all.
func (st *state) settleEviction(s *v1alpha1.Shoot, now time.Time, f flight) {
	st.applyShoot(s, now, true, -1, f)
}

func (st *state) applyShoot(s *v1alpha1.Shoot, now time.Time, own bool, inflight int, f flight) {
	dropped, count := st.setShootLocked(s, now, own, inflight, f)
	if st.onPendingChange != nil {
		st.onPendingChange(count)
	}
	if dropped && st.onPendingDrop != nil {
		st.onPendingDrop()
	}
}

func (st *state) setShootLocked(s *v1alpha1.Shoot, now time.Time, own bool, inflight int, f flight) (dropped bool, pending int) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.addInflightLocked(f, inflight)
	key := algorithm.ShootKey(s)
	if own && !st.written.Wrote(key, s) || !own && st.written.Observe(key, s.ResourceVersion) {
		// An older write of our own, or the informer has not caught up
		// with our own write yet.
		return false, st.pending.Len()
	}
	old := st.shoots[key]
	if old != nil {
		st.unindex(key, old)
	}
	st.shoots[key] = s
	st.snapshot.AddShoot(s)
	if s.Spec.SeedName != nil {
		addTo(st.onSeed, *s.Spec.SeedName, key)
		st.countRegion(*s.Spec.SeedName, s.Spec.Region, 1)
		if s.DeletionTimestamp != nil {
			st.deleting[*s.Spec.SeedName]++
		}
		switch a, ok := st.arrived[key]; {
		case !ok && old == nil:
			// The first sight of the shoot, at start-up or when it was
			// created: it came to its seed when its binding recorded
			// (graft.dev/placed-on), or, without that record, not before its
			// creation. Taking now would start every toleration over with
			// each restart.
			st.arrived[key] = arrival{seed: *s.Spec.SeedName, at: placedOn(s, now)}
		case !ok || a.seed != *s.Spec.SeedName:
			// Seen moving here: the shoot gets its full tolerationSeconds.
			// The binding's record is at most the informer's lag earlier;
			// an older one is left from an earlier stay on this seed.
			st.arrived[key] = arrival{seed: *s.Spec.SeedName, at: now}
		}
	} else {
		delete(st.arrived, key)
	}
	if s.Status.SeedName != nil && (s.Spec.SeedName == nil || *s.Spec.SeedName != *s.Status.SeedName) {
		addTo(st.leaving, *s.Status.SeedName, key)
	}
	to, inFlight := st.moves.InFlight(s)
	if !inFlight {
		delete(st.moving, key)
	} else if m, ok := st.moving[key]; !ok || m.seed != to {
		// Seen now, whatever the shoot says of it: a tenant must not make
		// its move look younger or older than it is. The clock runs until
		// the move lands: a tenant switching spec.schedulerName away and
		// back must not make its stuck move young again.
		st.moving[key] = arrival{seed: to, at: now}
	}
	if inFlight && to != "" {
		addTo(st.arriving, to, key)
	}
	wasPending := st.pending.Has(key)
	placed := st.schedulers.Has(helper.ShootSchedulerName(s)) && algorithm.WaitsForSeed(s)
	// A move that waits for a seed is ours to count while our scheduler
	// places the shoot (maxPendingEvicted).
	ours := placed && inFlight && to == ""
	if ours {
		st.pending.Insert(key)
	} else {
		st.pending.Delete(key)
	}
	if placed && !ours {
		st.waiting.Insert(key)
	} else {
		st.waiting.Delete(key)
	}
	return wasPending && !st.pending.Has(key), st.pending.Len()
}

// placedOn is when the shoot came to its spec.seedName as its binding
// recorded it, or, without a usable record, its creation: a record outside
// [creation, now] is not taken (the shoot was not placed before it existed
// nor after we see it there).
func placedOn(s *v1alpha1.Shoot, now time.Time) time.Time {
	created := s.CreationTimestamp.Time
	at, ok := helper.PlacedOn(s, *s.Spec.SeedName)
	if !ok || at.Before(created.Truncate(time.Second)) || at.After(now) {
		return created
	}
	return at
}

func (st *state) removeShoot(key string) {
	st.mu.Lock()
	old := st.shoots[key]
	if old != nil {
		st.unindex(key, old)
	}
	delete(st.shoots, key)
	st.written.Forget(key)
	delete(st.arrived, key)
	delete(st.moving, key)
	delete(st.stuckReported, key)
	st.snapshot.RemoveShootByKey(key)
	wasPending := st.pending.Has(key)
	st.pending.Delete(key)
	st.waiting.Delete(key)
	count := st.pending.Len()
	st.mu.Unlock()
	if st.onPendingChange != nil {
		st.onPendingChange(count)
	}
	if wasPending && st.onPendingDrop != nil {
		st.onPendingDrop()
	}
}

func (st *state) unindex(key string, s *v1alpha1.Shoot) {
	if seed := s.Spec.SeedName; seed != nil {
		removeFrom(st.onSeed, *seed, key)
		st.countRegion(*seed, s.Spec.Region, -1)
		if s.DeletionTimestamp != nil {
			if st.deleting[*seed]--; st.deleting[*seed] <= 0 {
				delete(st.deleting, *seed)
			}
		}
	}
	if s.Status.SeedName != nil {
		removeFrom(st.leaving, *s.Status.SeedName, key)
	}
	if m, ok := st.moving[key]; ok && m.seed != "" {
		removeFrom(st.arriving, m.seed, key)
	}
}

// countRegion adds delta to the shoots of region on seed, when an
// improving plugin runs.
func (st *state) countRegion(seed, region string, delta int) {
	if !st.spread {
		return
	}
	byRegion := st.regions[seed]
	if byRegion == nil {
		byRegion = map[string]int{}
		st.regions[seed] = byRegion
	}
	if byRegion[region] += delta; byRegion[region] <= 0 {
		delete(byRegion, region)
		if len(byRegion) == 0 {
			delete(st.regions, seed)
		}
	}
}

// awayLocked counts the shoots on seed of another region than its own.
// The caller holds st.mu.
func (st *state) awayLocked(seed *v1alpha1.Seed) int {
	n := 0
	for region, count := range st.regions[seed.Name] {
		if region != seed.Spec.Provider.Region {
			n += count
		}
	}
	return n
}

func addTo(index map[string]sets.Set[string], seed, key string) {
	set := index[seed]
	if set == nil {
		set = sets.New[string]()
		index[seed] = set
	}
	set.Insert(key)
}

func removeFrom(index map[string]sets.Set[string], seed, key string) {
	if set := index[seed]; set != nil {
		set.Delete(key)
		if set.Len() == 0 {
			delete(index, seed)
		}
	}
}

// view is what one pass reads: a consistent copy taken under the lock, of
// the seeds that need action only.
type view struct {
	// snapshot is a fork of the state's snapshot (nil when no seed needs
	// action): the pass's hypothetical evictions go into it, and the state
	// goes on changing underneath without either copying the other's
	// per-shoot records.
	snapshot *algorithm.Snapshot
	seeds    map[string]*framework.SeedState
	// named are the seeds the view was asked for (the caller's slice, not
	// copied): those of them snapshot holds but seeds does not are idle, no
	// plugin acts on them. A pass that stops early holds them back as it
	// does the seeds it did not get to.
	named []string
	// pending are the evicted shoots waiting for a seed, waiting the others.
	pending []*v1alpha1.Shoot
	waiting []*v1alpha1.Shoot
	// evacuating are, on Gardener, the seeds control planes are migrating
	// off (status.seedName names them, spec.seedName another seed).
	evacuating sets.Set[string]
}

// takeView copies what a pass over the named seeds needs: the shoots of the
// seeds a plugin may act on by their own facts, and of seeds with a NoExecute
// taint still to be stamped, so that a pass costs O(named seeds) plus
// O(their shoots). Seeds the snapshot does not hold are left out.
func (st *state) takeView(seedNames []string, now time.Time) *view {
	st.mu.Lock()
	defer st.mu.Unlock()
	v := &view{seeds: map[string]*framework.SeedState{}, named: seedNames}
	// One probe for every seed: most are idle, and a seed's facts are
	// copied out only when the view takes it.
	probe := &framework.SeedState{}
	spreads := st.spreadsLocked()
	for _, name := range seedNames {
		seed, ok := st.snapshot.Seed(name)
		if !ok {
			continue
		}
		*probe = framework.SeedState{
			Seed:    seed,
			Usage:   st.snapshot.Usage(name),
			Leaving: st.leaving[name].Len() + st.deleting[name],
			Now:     now,
		}
		if st.spread {
			probe.Away = st.awayLocked(seed)
			spreads.Of(probe)
		}
		if st.actsOn != nil && !st.actsOn(probe) && !taintclock.Unstamped(seed.Spec.Taints) {
			continue
		}
		facts := *probe
		st.gather(&facts, now)
		v.seeds[name] = &facts
	}
	if len(v.seeds) == 0 {
		return v
	}
	v.snapshot = st.snapshot.Fork()
	v.pending, v.waiting = st.queued()
	v.evacuating = st.evacuatingLocked(now)
	return v
}

// spreadsLocked are the utilisation spreads of the seeds that declare
// allocatable shoots, when an improving plugin runs (empty otherwise). The
// caller holds st.mu.
func (st *state) spreadsLocked() framework.Spreads {
	if !st.spread {
		return framework.Spreads{}
	}
	return framework.SpreadsOf(st.snapshot)
}

// eachShoot calls f with every shoot, under the lock: f must not call back.
func (st *state) eachShoot(f func(*v1alpha1.Shoot)) {
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, s := range st.shoots {
		f(s)
	}
}

// evacuatingLocked returns the seeds control planes are migrating off (the
// seeds moves bound to a destination leave), by moves that are not stuck:
// a tenant that breaks its own shoot's migration must not keep the seed it
// leaves closed for ever. The caller holds st.mu.
func (st *state) evacuatingLocked(now time.Time) sets.Set[string] {
	if len(st.arriving) == 0 {
		return nil
	}
	out := sets.New[string]()
	for _, keys := range st.arriving {
		for key := range keys {
			if from, known := st.moves.Leaves(st.shoots[key]); known && from != "" && !out.Has(from) && !st.stuckLocked(key, now) {
				out.Insert(from)
			}
		}
	}
	return out
}

// stuckLocked tells whether the shoot's move is stuck: it failed
// (garden.Moves.Failed: Gardener does not retry a failed migration), or
// this process has seen it in flight (on graft's API waiting for a seed)
// for migrationTimeout. The caller holds st.mu.
func (st *state) stuckLocked(key string, now time.Time) bool {
	_, stuck := st.stuckSinceLocked(key, now)
	return stuck
}

// stuckSinceLocked is stuckLocked with when the move was first seen in
// flight. The caller holds st.mu.
func (st *state) stuckSinceLocked(key string, now time.Time) (time.Time, bool) {
	s := st.shoots[key]
	if s == nil {
		return time.Time{}, false
	}
	m, ok := st.moving[key]
	switch {
	case !ok:
		return time.Time{}, false
	case st.moves.Failed(s):
		return m.at, true
	}
	return m.at, st.migrationTimeout > 0 && now.Sub(m.at) >= st.migrationTimeout
}

// stuckMove is a move found stuck.
type stuckMove struct {
	shoot *v1alpha1.Shoot
	// from is the seed the shoot leaves, when known and still there; to
	// its destination on Gardener.
	from, to string
	since    time.Time
}

// stuckMoves counts the stuck moves and returns those not reported yet,
// marking them reported: each stuck move is reported once.
func (st *state) stuckMoves(now time.Time, from func(*v1alpha1.Shoot) string) (total int, fresh []stuckMove) {
	st.mu.Lock()
	defer st.mu.Unlock()
	check := func(key string) {
		since, stuck := st.stuckSinceLocked(key, now)
		if !stuck {
			return
		}
		total++
		if at, ok := st.stuckReported[key]; ok && at.Equal(since) {
			return
		}
		st.stuckReported[key] = since
		s := st.shoots[key]
		m := stuckMove{shoot: s, since: since, from: from(s), to: st.moving[key].seed}
		if _, known := st.snapshot.Seed(m.from); !known {
			m.from = ""
		}
		fresh = append(fresh, m)
	}
	st.eachMoveLocked(check)
	slices.SortFunc(fresh, func(a, b stuckMove) int {
		return strings.Compare(algorithm.ShootKey(a.shoot), algorithm.ShootKey(b.shoot))
	})
	return total, fresh
}

// queued lists, in key order, the evicted shoots without a seed and the
// other shoots without one. The caller holds st.mu.
func (st *state) queued() (pending, waiting []*v1alpha1.Shoot) {
	for key := range st.pending {
		pending = append(pending, st.shoots[key])
	}
	for key := range st.waiting {
		waiting = append(waiting, st.shoots[key])
	}
	byKey := func(a, b *v1alpha1.Shoot) int { return strings.Compare(algorithm.ShootKey(a), algorithm.ShootKey(b)) }
	slices.SortFunc(pending, byKey)
	slices.SortFunc(waiting, byKey)
	return pending, waiting
}

// gather fills in the shoots of a seed the view takes and their toleration
// clocks.
func (st *state) gather(facts *framework.SeedState, now time.Time) {
	name := facts.Seed.Name
	keys := sets.List(st.onSeed[name])
	shoots := make([]*v1alpha1.Shoot, 0, len(keys))
	for _, k := range keys {
		// A shoot being deleted leaves anyway: moving it would only cost a
		// migration, and the room it frees must not be made again by moving
		// a live shoot, so it counts as leaving (st.deleting).
		if s := st.shoots[k]; s.DeletionTimestamp == nil && st.mayMove(s) {
			shoots = append(shoots, s)
		}
	}
	seen := maps.Clone(st.taintSeen[name])
	arrived := make(map[string]time.Time, len(keys))
	for _, k := range keys {
		arrived[k] = st.arrived[k].at
	}
	facts.Shoots = shoots
	facts.TolerationStart = func(shoot *v1alpha1.Shoot, t v1alpha1.SeedTaint) time.Time {
		sighted, ok := seen[taintID(t)]
		if !ok {
			sighted = now
		}
		return taintclock.Start(t, sighted, arrived[algorithm.ShootKey(shoot)])
	}
}

// mayMove tells whether the descheduler may move the shoot: its scheduler
// name is one it moves, and its last move has landed (on Gardener its
// migration has finished). The caller holds st.mu.
func (st *state) mayMove(s *v1alpha1.Shoot) bool {
	if st.movable != nil && !st.movable.Has(helper.ShootSchedulerName(s)) {
		return false
	}
	return !st.inFlight(s)
}

// inFlight tells whether the shoot's move is in flight as the API shows it.
func (st *state) inFlight(s *v1alpha1.Shoot) bool {
	_, ok := st.moves.InFlight(s)
	return ok
}

// arrivedOn is when the shoot came to seed as far as this process knows
// (see setShootLocked), and whether it knows.
func (st *state) arrivedOn(key, seed string) (time.Time, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	a, ok := st.arrived[key]
	return a.at, ok && a.seed == seed
}

// pendingCount is the number of evicted shoots without a seed, counting the
// evictions being written that will wait for one, at now: a migration being
// written is bound to its destination and never waits (counting it made a
// pass's refusals depend on how fast its writers were); stuck moves count
// against no budget and are left out.
func (st *state) pendingCount(now time.Time) int {
	st.mu.Lock()
	defer st.mu.Unlock()
	n := st.inflight - st.inflightBound
	for key := range st.pending {
		if !st.stuckLocked(key, now) {
			n++
		}
	}
	return n
}

// movesInFlightIn counts the moves of one namespace's shoots in flight, as
// the project budget counts them: on Gardener its migrations in flight
// (whoever started them), on graft's API its evicted shoots waiting for a
// seed, and in both the evictions being written; stuck moves do not count.
func (st *state) movesInFlightIn(namespace string, now time.Time) int {
	st.mu.Lock()
	defer st.mu.Unlock()
	n := st.inflightIn[namespace]
	count := func(key string) {
		if ns, _, _ := strings.Cut(key, "/"); ns == namespace && !st.stuckLocked(key, now) {
			n++
		}
	}
	st.eachMoveLocked(count)
	return n
}

// eachMoveLocked calls f with the key of every shoot whose move is in
// flight as the informers show it (garden.Moves.InFlight): on Gardener a
// migration not finished, on graft's API an evicted shoot our scheduler
// places. The caller holds st.mu.
func (st *state) eachMoveLocked(f func(key string)) {
	for key, m := range st.moving {
		if m.seed != "" || st.pending.Has(key) {
			f(key)
		}
	}
}

// addInflight counts an eviction being written (delta 1) or no longer (-1).
func (st *state) addInflight(f flight, delta int) {
	st.mu.Lock()
	st.addInflightLocked(f, delta)
	st.mu.Unlock()
}

func (st *state) addInflightLocked(f flight, delta int) {
	if delta == 0 {
		return
	}
	st.inflight += delta
	if f.target != "" {
		st.inflightBound += delta
	}
	if st.inflightIn[f.namespace] += delta; st.inflightIn[f.namespace] <= 0 {
		delete(st.inflightIn, f.namespace)
	}
	if f.target == "" {
		return
	}
	if st.inflightTo[f.target] += delta; st.inflightTo[f.target] <= 0 {
		delete(st.inflightTo, f.target)
	}
}

// migrationsInFlight counts the control-plane migrations in flight in the
// garden, whoever started them (shoots the informers show migrating, and
// the migrations being written), and those of them to seed; stuck ones are
// counted apart and in neither (stuckLocked).
func (st *state) migrationsInFlight(seed string, now time.Time) (total, to, stuck int) {
	st.mu.Lock()
	defer st.mu.Unlock()
	for dest, keys := range st.arriving {
		for key := range keys {
			switch {
			case st.stuckLocked(key, now):
				stuck++
			case dest == seed:
				total++
				to++
			default:
				total++
			}
		}
	}
	return total + st.inflightBound, to + st.inflightTo[seed], stuck
}

// seedNames returns the names of every known seed, sorted.
func (st *state) seedNames() []string {
	st.mu.Lock()
	defer st.mu.Unlock()
	out := make([]string, 0, st.snapshot.NumSeeds())
	for _, s := range st.snapshot.Seeds() {
		out = append(out, s.Name)
	}
	return out
}
