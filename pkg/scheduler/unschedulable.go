package scheduler

import (
	"errors"
	"slices"
	"sync"
	"time"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/algorithm"
)

// What requeued an unschedulable shoot: the values of the trigger label.
const (
	triggerSeedAdded     = "seed_added"
	triggerSeedChanged   = "seed_changed"
	triggerSeedDeleted   = "seed_deleted"
	triggerCapacityFreed = "capacity_freed"
	triggerCloudProfile  = "cloud_profile"
	triggerRegionConfig  = "region_config"
	triggerPeriodic      = "periodic"
)

// How a requeued shoot's next decision ended: the values of the outcome label.
const (
	outcomeScheduled    = "scheduled"     // the requeue helped
	outcomeSameFailure  = "same_failure"  // it did not: the same stable reason again
	outcomeOtherFailure = "other_failure" // still no seed, for other reasons
)

// waiting is a shoot no seed fitted, with what its last decision rejected
// each seed for.
type waiting struct {
	// rejections holds a FilterCode per seed index of the pool: the filter
	// whose lifting could make the seed a candidate (Rejection.Hint); 0 for
	// a seed the decision did not see.
	rejections []uint8
	// zonePreference is set when a zone preference set seeds aside: a zone
	// change of any seed, or a seed leaving, can then make them candidates.
	zonePreference bool
	// profile is the name of the cloud profile the shoot is decided with
	// (region ConfigMaps name profiles so).
	profile string
	// reason is the stable reason of its last failure (algorithm.StableReason).
	reason string

	attempts    int
	lastAttempt time.Time
	// parked is set while the shoot waits for a hint; false while it is
	// queued or being decided.
	parked   bool
	parkedAt time.Time
	// trigger is what requeued it; empty for a shoot its own update queued.
	trigger string
	// deciding and since: a decision is in flight, which began when the
	// event log had reached since.
	deciding bool
	since    uint64
}

// poolEvent is a change that may help waiting shoots, kept while decisions
// that may not have seen it are in flight.
type poolEvent struct {
	trigger string
	// seed is the seed changed, added, deleted or with capacity freed.
	seed string
	// change is set for a seed update; added for a new seed.
	change *algorithm.SeedChange
	added  *corev1alpha1.Seed
	// zones says that a zone preference may weigh differently now.
	zones bool
	// profiles are the cloud profiles a profile or region ConfigMap change
	// concerns.
	profiles []string
}

// unschedulablePool holds the shoots no seed fits until an event that can
// help them (a queueing hint) or the periodic retry requeues them. See
// docs/algorithm.md, "Queueing hints".
type unschedulablePool struct {
	mu     sync.Mutex
	seeds  map[string]int
	shoots map[string]*waiting
	// log holds the events since the oldest decision in flight began;
	// logBase is the position of log[0].
	log     []poolEvent
	logBase uint64

	// requeue queues a shoot after a delay (its backoff).
	requeue func(key string, after time.Duration)
	// admits decides a shoot against one seed alone: the filter that
	// rejects it, empty when the seed can take it or the shoot cannot be
	// decided.
	admits func(key string, seed *corev1alpha1.Seed) algorithm.Filter
	now    func() time.Time
}

func newUnschedulablePool(requeue func(string, time.Duration), admits func(string, *corev1alpha1.Seed) algorithm.Filter,
	now func() time.Time) *unschedulablePool {
	return &unschedulablePool{seeds: map[string]int{}, shoots: map[string]*waiting{}, requeue: requeue, admits: admits, now: now}
}

// seedIndex returns the seed's column; callers hold the lock.
func (p *unschedulablePool) seedIndex(name string) int {
	i, ok := p.seeds[name]
	if !ok {
		i = len(p.seeds)
		p.seeds[name] = i
	}
	return i
}

// begin marks the start of a decision of key. It returns what requeued the
// shoot ("" when nothing did: it is new, or its own update queued it) and the
// stable reason of its last failure ("" when it has none).
func (p *unschedulablePool) begin(key string) (trigger, prevReason string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	w, ok := p.shoots[key]
	if !ok {
		w = &waiting{}
		p.shoots[key] = w
	}
	trigger, prevReason = w.trigger, w.reason
	w.parked, w.trigger, w.deciding, w.since = false, "", true, p.logBase+uint64(len(p.log))
	w.attempts++
	w.lastAttempt = p.now()
	return trigger, prevReason
}

// end marks the end of a decision of key that neither failed for want of a
// seed nor placed the shoot (an error the caller retries with backoff).
func (p *unschedulablePool) end(key string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if w, ok := p.shoots[key]; ok {
		w.deciding = false
		if w.reason == "" {
			delete(p.shoots, key)
		}
	}
	p.trimLog()
}

// park records a failed decision of key and keeps it until an event can
// help. An event the decision may not have seen that can help requeues it
// (with its backoff).
func (p *unschedulablePool) park(key, profile string, cause error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	w, ok := p.shoots[key]
	if !ok {
		w = &waiting{attempts: 1, lastAttempt: p.now()}
		p.shoots[key] = w
	}
	w.reason, w.profile = algorithm.StableReason(cause), profile
	clear(w.rejections)
	w.zonePreference = false
	var se *algorithm.ScheduleError
	if errors.As(cause, &se) {
		for _, r := range se.Rejections {
			p.setHint(w, r.Seed, r.Hint())
			w.zonePreference = w.zonePreference || r.Filter == algorithm.FilterZonePreference
		}
	}
	since := w.since
	w.deciding = false
	w.parked, w.parkedAt = true, p.now()
	for i := int(since - p.logBase); i >= 0 && i < len(p.log); i++ {
		if p.helps(key, w, &p.log[i], true) {
			p.requeueLocked(key, w, p.log[i].trigger)
			break
		}
	}
	p.trimLog()
}

// updated requeues a shoot whose own decision inputs changed after what is
// left of its backoff, when its last decision failed for want of a seed (a
// decision in flight may not have seen the update: it is decided again
// after that one). It reports false for a shoot it does not hold, which the
// caller decides at once.
func (p *unschedulablePool) updated(key string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	w, ok := p.shoots[key]
	if !ok || w.reason == "" {
		return false
	}
	p.requeueLocked(key, w, "")
	return true
}

// forget drops key: bound, deleted or no longer this scheduler's.
func (p *unschedulablePool) forget(key string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.shoots, key)
	p.trimLog()
}

// event requeues the waiting shoots ev can help and keeps ev for the
// decisions in flight.
func (p *unschedulablePool) event(ev poolEvent) {
	p.mu.Lock()
	defer p.mu.Unlock()
	inFlight := false
	for key, w := range p.shoots {
		if w.deciding {
			inFlight = true
			continue
		}
		if w.parked && p.helps(key, w, &ev, false) {
			p.requeueLocked(key, w, ev.trigger)
		}
	}
	if inFlight {
		p.log = append(p.log, ev)
	}
	if i, ok := p.seeds[ev.seed]; ok && ev.trigger == triggerSeedDeleted {
		// A seed of that name created later is new to every shoot.
		for _, w := range p.shoots {
			if i < len(w.rejections) {
				w.rejections[i] = 0
			}
		}
	}
}

// helps tells whether ev can make a seed fit the waiting shoot. inFlight
// events may predate what the decision saw, and an unknown seed then
// counts as helping. Callers hold the lock.
func (p *unschedulablePool) helps(key string, w *waiting, ev *poolEvent, inFlight bool) bool {
	if ev.zones && w.zonePreference {
		return true
	}
	if len(ev.profiles) > 0 {
		return slices.Contains(ev.profiles, w.profile)
	}
	if ev.seed == "" {
		return false
	}
	i, ok := p.seeds[ev.seed]
	code := uint8(0)
	if ok && i < len(w.rejections) {
		code = w.rejections[i]
	}
	switch {
	case ev.trigger == triggerCapacityFreed:
		return code == algorithm.FilterCode(algorithm.FilterCapacity)
	case ev.trigger == triggerSeedDeleted:
		return false
	case ev.added != nil && inFlight:
		return code == 0 // unless the decision saw the seed
	case ev.change != nil && code != 0 && !ev.change.Lifts(algorithm.FilterOfCode(code)):
		return false
	case ev.added == nil && ev.change == nil:
		return false
	case inFlight:
		return true
	}
	// A new seed, one the decision did not see, or one whose rejection was
	// lifted: decide the shoot against it alone, and remember what rejects
	// it now if something does.
	seed := ev.added
	if seed == nil {
		seed = ev.change.Current()
	}
	f := p.admits(key, seed)
	if f == "" {
		return true
	}
	p.setHint(w, ev.seed, f)
	return false
}

// setHint records the filter to watch on a seed for a waiting shoot.
// Callers hold the lock.
func (p *unschedulablePool) setHint(w *waiting, seed string, f algorithm.Filter) {
	i := p.seedIndex(seed)
	if i >= len(w.rejections) {
		w.rejections = append(w.rejections, make([]uint8, i+1-len(w.rejections))...)
	}
	w.rejections[i] = algorithm.FilterCode(f)
}

// requeueLocked queues a parked shoot after what is left of its backoff.
func (p *unschedulablePool) requeueLocked(key string, w *waiting, trigger string) {
	w.parked, w.trigger = false, trigger
	p.requeue(key, max(0, backoff(w.attempts)-p.now().Sub(w.lastAttempt)))
}

// retryParked requeues the shoots parked for longer than after: the safety
// net for a hint that was missed.
func (p *unschedulablePool) retryParked(after time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	for key, w := range p.shoots {
		if w.parked && now.Sub(w.parkedAt) >= after {
			p.requeueLocked(key, w, triggerPeriodic)
		}
	}
}

// trimLog drops the events every decision in flight has seen. Callers hold
// the lock.
func (p *unschedulablePool) trimLog() {
	if len(p.log) == 0 {
		return
	}
	oldest := p.logBase + uint64(len(p.log))
	for _, w := range p.shoots {
		if w.deciding && w.since < oldest {
			oldest = w.since
		}
	}
	drop := int(oldest - p.logBase)
	if drop > 0 {
		p.log = append(p.log[:0], p.log[drop:]...)
		p.logBase = oldest
	}
}

// empty tells whether no shoot waits and none is being decided: then no
// change needs preparing for the pool.
func (p *unschedulablePool) empty() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.shoots) == 0
}

// parked returns how many shoots wait for a hint.
func (p *unschedulablePool) parked() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, w := range p.shoots {
		if w.parked {
			n++
		}
	}
	return n
}

// backoff is the delay before the attempt after attempts failed ones:
// initialBackoff doubling up to maxBackoff.
func backoff(attempts int) time.Duration {
	d := initialBackoff
	for i := 1; i < attempts && d < maxBackoff; i++ {
		d *= 2
	}
	return min(d, maxBackoff)
}
