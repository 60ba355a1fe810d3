package overcapacity

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/descheduler/framework"
	"github.com/graft-dev/graft/pkg/maintenance"
)

// Plugin evicts the excess shoots of over-full seeds.
type Plugin struct {
	args Args
	rank map[v1alpha1.ShootPurpose]int
}

var (
	_ framework.Plugin     = &Plugin{}
	_ framework.SeedFilter = &Plugin{}
)

// New returns the plugin for defaulted, validated arguments.
func New(args Args) *Plugin {
	rank := make(map[v1alpha1.ShootPurpose]int, len(args.PurposeOrder))
	for i, p := range args.PurposeOrder {
		rank[p] = i
	}
	return &Plugin{args: args, rank: rank}
}

// Name implements framework.Plugin.
func (p *Plugin) Name() string { return Name }

// Excess is how many shoots must leave a seed: its usage minus its
// allocatable shoots minus the shoots already leaving. Zero when the seed
// declares no allocatable shoots.
func Excess(state *framework.SeedState) int {
	q, ok := state.Seed.Status.Allocatable[v1alpha1.ResourceShoots]
	if !ok {
		return 0
	}
	return max(0, state.Usage-int(q.Value())-state.Leaving)
}

// ActsOn implements framework.SeedFilter: the excess is a fact of the seed
// (its usage, allocatable shoots and leaving shoots).
func (p *Plugin) ActsOn(state *framework.SeedState) bool {
	return Excess(state) > 0
}

// Evaluate implements framework.Plugin: the excess shoots, lowest value first,
// chosen among the shoots whose purpose purposeOrder lists. When those are too
// few, the seed stays over its allocatable shoots: other purposes never move.
func (p *Plugin) Evaluate(state *framework.SeedState) framework.Result {
	excess := Excess(state)
	if excess == 0 {
		return framework.Result{}
	}
	eligible := make([]*v1alpha1.Shoot, 0, len(state.Shoots))
	for _, s := range state.Shoots {
		if _, listed := p.rank[purposeOf(s)]; listed && !framework.EvictionProtected(s) {
			eligible = append(eligible, s)
		}
	}
	slices.SortStableFunc(eligible, p.compare)
	allocatable := state.Seed.Status.Allocatable[v1alpha1.ResourceShoots]
	out := make([]framework.Candidate, 0, min(excess, len(eligible)))
	for _, s := range eligible[:min(excess, len(eligible))] {
		out = append(out, framework.Candidate{
			Shoot: s,
			Reason: fmt.Sprintf("seed %s holds %d shoots but allows %s (%d already leaving); the shoot is among the %d of lowest value",
				state.Seed.Name, state.Usage, allocatable.String(), state.Leaving, excess),
			Cause: "over capacity",
			Force: p.args.Force,
			// An over-full seed still runs its control planes: the move can
			// wait for the shoot's maintenance window, a day at most.
			Urgency:     maintenance.Deferrable,
			MaxDeferral: p.maxDeferral(),
		})
	}
	return framework.Result{Candidates: out}
}

func (p *Plugin) maxDeferral() time.Duration {
	if p.args.MaxDeferral == nil {
		return DefaultMaxDeferral
	}
	return p.args.MaxDeferral.Duration
}

// compare orders shoots by eviction preference: purpose rank, then newest
// first, then namespace/name for a stable order.
func (p *Plugin) compare(a, b *v1alpha1.Shoot) int {
	if ra, rb := p.purposeRank(a), p.purposeRank(b); ra != rb {
		return ra - rb
	}
	if ta, tb := a.CreationTimestamp.Time, b.CreationTimestamp.Time; !ta.Equal(tb) {
		if ta.After(tb) {
			return -1
		}
		return 1
	}
	if c := strings.Compare(a.Namespace, b.Namespace); c != 0 {
		return c
	}
	return strings.Compare(a.Name, b.Name)
}

// purposeRank is the purpose's place in purposeOrder; only shoots of listed
// purposes are ranked at all.
func (p *Plugin) purposeRank(s *v1alpha1.Shoot) int {
	return p.rank[purposeOf(s)]
}

// purposeOf is the shoot's purpose, evaluation when unset (Gardener's default).
func purposeOf(s *v1alpha1.Shoot) v1alpha1.ShootPurpose {
	if s.Spec.Purpose != nil {
		return *s.Spec.Purpose
	}
	return v1alpha1.ShootPurposeEvaluation
}
