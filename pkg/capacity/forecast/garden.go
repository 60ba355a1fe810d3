package forecast

import (
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"

	"github.com/graft-dev/graft/pkg/algorithm"
)

// Selector is a configured pool: the seeds its label selector matches.
type Selector struct {
	Name     string
	Selector labels.Selector
}

// Garden is what a forecast is made of: graft-capacity-annotator gives its
// informers' objects, graftctl the garden it lists; both get the same
// numbers from Make.
type Garden struct {
	Now time.Time
	// Window is how far back arrivals count.
	Window time.Duration
	Seeds  []*v1alpha1.Seed
	// Shoots need their placement, region and creation time; the pending
	// ones of SchedulerName their whole spec.
	Shoots []*v1alpha1.Shoot
	Pools  []Selector
	// SchedulerName is the scheduler whose pending shoots may wait for
	// capacity; empty: any scheduler's.
	SchedulerName string
	// Inputs are the algorithm's inputs for a pending shoot; nil counts no
	// shoot as waiting.
	Inputs func(*v1alpha1.Shoot) (algorithm.Inputs, error)
	// Departures are the placed shoots deleted within the window, as the
	// annotator saw them; they count in the pools of their seed.
	Departures []Departure
}

// PoolsOf is the seed's region and the pools selecting it.
func PoolsOf(seed *v1alpha1.Seed, pools []Selector) []Pool {
	out := []Pool{{Kind: KindRegion, Name: seed.Spec.Provider.Region}}
	set := labels.Set(seed.Labels)
	for _, p := range pools {
		if p.Selector.Matches(set) {
			out = append(out, Pool{Kind: KindPool, Name: p.Name})
		}
	}
	return out
}

// Make tallies every region and pool: seeds, free slots, the shoots
// waiting for capacity alone (in the pools of the seeds that would take
// them if they had room) and the shoots that arrived within the window,
// placed or waiting, less the departures that make up for them. It returns the summaries and each seed's usage.
func Make(g Garden) ([]Summary, map[string]int) {
	snap := algorithm.NewSnapshot()
	poolsOf := make(map[string][]Pool, len(g.Seeds))
	for _, seed := range g.Seeds {
		snap.AddSeed(seed)
		poolsOf[seed.Name] = PoolsOf(seed, g.Pools)
	}
	var pending []*v1alpha1.Shoot
	for _, shoot := range g.Shoots {
		snap.AddShoot(shoot)
		if helper.ShootWaitsFor(shoot, g.SchedulerName) || g.SchedulerName == "" && helper.ShootWaitsFor(shoot, helper.ShootSchedulerName(shoot)) {
			pending = append(pending, shoot)
		}
	}
	tally := NewTally(g.Now, g.Window)
	usage := make(map[string]int, len(g.Seeds))
	for _, seed := range g.Seeds {
		u := snap.Usage(seed.Name)
		usage[seed.Name] = u
		facts := Seed{Usage: u, TakesShoots: TakesShoots(seed)}
		if q, ok := seed.Status.Allocatable[v1alpha1.ResourceShoots]; ok {
			v := q.Value()
			facts.Allocatable = &v
		}
		for _, p := range poolsOf[seed.Name] {
			tally.Seed(p, facts)
		}
	}
	for _, shoot := range g.Shoots {
		if !helper.ShootBound(shoot) {
			continue
		}
		for _, p := range poolsOf[*shoot.Spec.SeedName] {
			tally.Arrived(p, shoot.CreationTimestamp.Time)
		}
	}
	for _, dep := range g.Departures {
		for _, p := range poolsOf[dep.Seed] {
			tally.Departed(p, dep.Created, dep.Deleted)
		}
	}
	for _, shoot := range pending {
		for _, p := range g.waitingIn(shoot, snap, poolsOf) {
			tally.Waiting(p)
			tally.Arrived(p, shoot.CreationTimestamp.Time)
		}
	}
	return tally.Summaries(), usage
}

// waitingIn returns the pools a pending shoot waits in for capacity alone:
// the regions of the seeds that would take it if they had room, and the
// first of their configured pools in the configuration's order. One shoot
// is one shoot's worth of demand: counted in two pools, it scaled out both.
// A shoot some other filter keeps from every seed waits in none.
func (g *Garden) waitingIn(shoot *v1alpha1.Shoot, snap *algorithm.Snapshot, poolsOf map[string][]Pool) []Pool {
	if g.Inputs == nil {
		return nil
	}
	in, err := g.Inputs(shoot)
	if err != nil {
		return nil
	}
	seeds, err := algorithm.WithRoomOnly(shoot, snap, in)
	if err != nil {
		return nil
	}
	seen := sets.New[Pool]()
	var out []Pool
	first := -1
	for _, seed := range seeds {
		for _, p := range poolsOf[seed] {
			if p.Kind == KindPool {
				if i := slices.IndexFunc(g.Pools, func(s Selector) bool { return s.Name == p.Name }); first < 0 || i < first {
					first = i
				}
				continue
			}
			if !seen.Has(p) {
				seen.Insert(p)
				out = append(out, p)
			}
		}
	}
	if first >= 0 {
		out = append(out, Pool{Kind: KindPool, Name: g.Pools[first].Name})
	}
	return out
}

// TakesShoots reports whether a new shoot may go to the seed as far as the
// seed alone says: usable (helper.SeedUnusableReason) and without a
// NoSchedule or NoExecute taint.
func TakesShoots(seed *v1alpha1.Seed) bool {
	if helper.SeedUnusableReason(seed) != "" {
		return false
	}
	for _, t := range seed.Spec.Taints {
		if e := helper.TaintEffectOf(t); e == v1alpha1.TaintEffectNoSchedule || e == v1alpha1.TaintEffectNoExecute {
			return false
		}
	}
	return true
}
