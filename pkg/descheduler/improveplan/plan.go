package improveplan

import (
	"slices"
	"strings"
	"time"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/algorithm"
	"github.com/graft-dev/graft/pkg/descheduler/framework"
	"github.com/graft-dev/graft/pkg/maintenance"
)

// Move is one planned move.
type Move struct {
	Shoot    *v1alpha1.Shoot
	From, To string
	Plugin   string
	Reason   string
	// When is when the shoot's window lets it move, from the plan's now.
	When maintenance.When
}

// SeedChange is one seed's usage before and after the plan.
type SeedChange struct {
	Seed          string
	Allocatable   int64 // -1: none declared
	Before, After int
}

// Plan is the outcome of planning.
type Plan struct {
	Moves []Move
	Seeds []SeedChange
	// Sweeps is how many times the plugins were run over every seed until
	// none wanted another move.
	Sweeps int
}

// maxSweeps bounds the sweeps: each but the last moves at least one shoot,
// and no shoot moves twice, so the number of shoots bounds them anyway.
const maxSweeps = 100

// Compute plans the improving plugins' moves on snap, which it changes
// (give it a fork): seeds in name order, plugins in their order, each move
// counting for the next, sweep after sweep until no plugin wants another.
// A shoot moves at most once, as the cool-down has it. shoots are the
// landscape's shoots (those on no seed, being deleted or migrating are left
// alone); inputs gives a shoot's inputs.
func Compute(snap *algorithm.Snapshot, shoots []*v1alpha1.Shoot, plugins []framework.Plugin, inputs func(*v1alpha1.Shoot) (algorithm.Inputs, error), now time.Time) Plan {
	before := usages(snap)
	bySeed := map[string][]*v1alpha1.Shoot{}
	for _, s := range shoots {
		if s.Spec.SeedName == nil || s.DeletionTimestamp != nil || algorithm.Migrating(s) {
			continue
		}
		bySeed[*s.Spec.SeedName] = append(bySeed[*s.Spec.SeedName], s)
	}
	for _, list := range bySeed {
		slices.SortFunc(list, func(a, b *v1alpha1.Shoot) int { return strings.Compare(algorithm.ShootKey(a), algorithm.ShootKey(b)) })
	}
	var out Plan
	moved := map[string]bool{}
	for out.Sweeps < maxSweeps {
		out.Sweeps++
		spreads := framework.SpreadsOf(snap)
		progress := false
		for _, seed := range snap.Seeds() {
			for _, p := range plugins {
				if _, improving := p.(framework.ChurnLimited); !improving {
					continue
				}
				st := &framework.SeedState{Seed: seed, Usage: snap.Usage(seed.Name), Now: now, AnyTime: true}
				spreads.Of(st)
				for _, s := range bySeed[seed.Name] {
					if !moved[algorithm.ShootKey(s)] {
						st.Shoots = append(st.Shoots, s)
						if s.Spec.Region != seed.Spec.Provider.Region {
							st.Away++
						}
					}
				}
				if f, ok := p.(framework.SeedFilter); ok && !f.ActsOn(st) {
					continue
				}
				res := p.Evaluate(st)
				n, streak := 0, 0
				for _, c := range res.Candidates {
					if res.Want > 0 && n >= res.Want {
						break
					}
					if c.Improves == nil {
						continue
					}
					in, err := inputs(c.Shoot)
					if err != nil {
						continue
					}
					target, why := framework.ImprovementTarget(c, seed, snap, in)
					if why != "" {
						if streak++; streak >= framework.MaxFruitless {
							break
						}
						continue
					}
					streak = 0
					w, _ := maintenance.Of(c.Shoot)
					out.Moves = append(out.Moves, Move{Shoot: c.Shoot, From: seed.Name, To: target, Plugin: p.Name(), Reason: c.Reason,
						When: maintenance.Timing(now, maintenance.Deferrable, w, time.Time{})})
					moved[algorithm.ShootKey(c.Shoot)] = true
					snap.UpdateShoot(c.Shoot, onSeed(c.Shoot, target))
					n++
					progress = true
				}
			}
		}
		if !progress {
			break
		}
	}
	after := usages(snap)
	for _, seed := range snap.Seeds() {
		c := SeedChange{Seed: seed.Name, Allocatable: -1, Before: before[seed.Name], After: after[seed.Name]}
		if q, ok := seed.Status.Allocatable[v1alpha1.ResourceShoots]; ok {
			c.Allocatable = q.Value()
		}
		out.Seeds = append(out.Seeds, c)
	}
	return out
}

func usages(snap *algorithm.Snapshot) map[string]int {
	out := map[string]int{}
	snap.EachSeed(func(seed *v1alpha1.Seed, usage int) { out[seed.Name] = usage })
	return out
}

// onSeed is a shallow copy of the shoot bound to seed.
func onSeed(s *v1alpha1.Shoot, seed string) *v1alpha1.Shoot {
	c := *s
	c.Spec.SeedName = &seed
	c.Status.SeedName = &seed
	return &c
}
