package forecast

import (
	"slices"
	"strings"
	"time"
)

// Kind is what groups a pool's seeds.
type Kind string

const (
	// KindRegion groups the seeds of one provider region.
	KindRegion Kind = "region"
	// KindPool groups the seeds a configured pool selects.
	KindPool Kind = "pool"
)

// Pool names one group of seeds.
type Pool struct {
	Kind Kind
	Name string
}

// Seed is what the tally reads of one seed of a pool.
type Seed struct {
	// Allocatable is the seed's allocatable shoots; nil when unset, which
	// leaves the seed, and so its pool, without a limit.
	Allocatable *int64
	// Usage is the shoots counted on it.
	Usage int
	// TakesShoots is false for a seed no new shoot may go to now (being
	// deleted, not visible, cordoned by a NoSchedule or NoExecute taint):
	// its free slots do not count.
	TakesShoots bool
}

// Summary is a pool's facts and forecast.
type Summary struct {
	Pool
	// Seeds counts the pool's seeds; Allocatable and Usage sum those that
	// take shoots.
	Seeds              int
	Allocatable, Usage int64
	// Unbounded is set when a seed that takes shoots has no allocatable.
	Unbounded bool
	Forecast
}

// Tally collects the facts of every pool for one forecast. Not safe for
// concurrent use.
type Tally struct {
	now    time.Time
	window time.Duration
	pools  map[Pool]*poolTally
}

type poolTally struct {
	seeds, waiting     int
	allocatable, usage int64
	free               int64
	unbounded          bool
	// arrived counts the arrivals within the window, departed the
	// departures that make up for them (Departed).
	arrived, departed int
}

// NewTally starts a tally at now counting arrivals over window.
func NewTally(now time.Time, window time.Duration) *Tally {
	return &Tally{now: now, window: window, pools: map[Pool]*poolTally{}}
}

func (t *Tally) pool(p Pool) *poolTally {
	pt, ok := t.pools[p]
	if !ok {
		pt = &poolTally{}
		t.pools[p] = pt
	}
	return pt
}

// Seed adds a seed to pool p.
func (t *Tally) Seed(p Pool, s Seed) {
	pt := t.pool(p)
	pt.seeds++
	if !s.TakesShoots {
		return
	}
	if s.Allocatable == nil {
		pt.unbounded = true
		return
	}
	pt.allocatable += *s.Allocatable
	pt.usage += int64(s.Usage)
	pt.free += max(0, *s.Allocatable-int64(s.Usage))
}

// Waiting counts a shoot that waits for capacity alone in pool p.
func (t *Tally) Waiting(p Pool) { t.pool(p).waiting++ }

// Arrived counts a new shoot of pool p created at; one outside the window
// is not counted.
func (t *Tally) Arrived(p Pool, at time.Time) {
	if at.After(t.now) || t.now.Sub(at) >= t.window {
		return
	}
	t.pool(p).arrived++
}

// Departed counts a placed shoot of pool p created before the window and
// deleted within it: it existed when the window began and no longer does,
// so it takes one arrival back. Any other departure is not counted (a shoot
// created within the window and deleted is no arrival either).
func (t *Tally) Departed(p Pool, created, deleted time.Time) {
	start := t.now.Add(-t.window)
	if !created.Before(start) || deleted.Before(start) || deleted.After(t.now) {
		return
	}
	t.pool(p).departed++
}

// Summaries returns every pool's summary, by kind and name.
func (t *Tally) Summaries() []Summary {
	out := make([]Summary, 0, len(t.pools))
	for p, pt := range t.pools {
		s := Summary{Pool: p, Seeds: pt.seeds, Allocatable: pt.allocatable, Usage: pt.usage, Unbounded: pt.unbounded}
		s.Forecast = Compute(Input{Window: t.window, Free: int(pt.free), Waiting: pt.waiting, Arrived: pt.arrived, Departed: pt.departed})
		if pt.unbounded {
			s.Full, s.FullIn, s.Never = false, 0, true
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b Summary) int {
		if c := strings.Compare(string(a.Kind), string(b.Kind)); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out
}

// Within reports whether the pool is full now or fills within horizon at
// the arrival rate.
func (f Forecast) Within(horizon time.Duration) bool {
	return f.Full || (!f.Never && f.FullIn <= horizon)
}
