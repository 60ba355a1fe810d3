package rebalance

import (
	"fmt"
	"math"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/descheduler/framework"
	"github.com/graft-dev/graft/pkg/maintenance"
)

// Plugin moves shoots from seeds above the high mark to seeds under the low one.
type Plugin struct {
	args Args
}

var (
	_ framework.Plugin       = &Plugin{}
	_ framework.SeedFilter   = &Plugin{}
	_ framework.ChurnLimited = &Plugin{}
)

// New returns the plugin for defaulted, validated arguments.
func New(args Args) *Plugin { return &Plugin{args: args} }

// Name implements framework.Plugin.
func (p *Plugin) Name() string { return Name }

// Churn implements framework.ChurnLimited.
func (p *Plugin) Churn() framework.Churn { return p.args.Churn() }

// Marks are the high and low utilisation marks, as shares (0..1).
type Marks struct{ High, Low float64 }

// Marks returns the marks over a garden's spread: the configured shares, or
// points around the mean.
func (p *Plugin) Marks(spread framework.Spread) Marks {
	high, low := float64(*p.args.HighUtilisation)/100, float64(*p.args.LowUtilisation)/100
	if p.args.RelativeToMean {
		return Marks{High: spread.Mean + high, Low: max(0, spread.Mean-low)}
	}
	return Marks{High: high, Low: low}
}

// Excess is how many shoots must leave the seed for it to be at or under the
// high mark, the shoots already leaving not counted; 0 for a seed without
// allocatable shoots.
func Excess(state *framework.SeedState, m Marks) int {
	q, ok := state.Seed.Status.Allocatable[v1alpha1.ResourceShoots]
	if !ok || q.Value() <= 0 {
		return 0
	}
	// A small epsilon keeps 85% of 20 at 17, not 16.999.
	keep := int(math.Floor(m.High*float64(q.Value()) + 1e-9))
	return max(0, state.Usage-state.Leaving-keep)
}

// ActsOn implements framework.SeedFilter: the seed is above the high mark
// and some seed of its region is under the low one. The scheduler chooses a
// seed of the shoot's region while one takes it (both strategies), so a low
// seed elsewhere would take none of this seed's shoots.
func (p *Plugin) ActsOn(state *framework.SeedState) bool {
	m := p.Marks(state.Landscape)
	return state.Region.Seeds > 1 && state.Region.Min < m.Low && Excess(state, m) > 0
}

// Evaluate implements framework.Plugin: the shoots that may move now (in
// their maintenance window, not protected, last operation not failed), of
// which the excess is wanted moved, each project's at most its share of the
// excess (framework.ProjectShares); the others are alternatives, for a
// shoot the scheduler would not send to a low seed.
func (p *Plugin) Evaluate(state *framework.SeedState) framework.Result {
	m := p.Marks(state.Landscape)
	if !p.ActsOn(state) {
		return framework.Result{}
	}
	excess := Excess(state, m)
	alloc := state.Seed.Status.Allocatable[v1alpha1.ResourceShoots]
	reason := fmt.Sprintf("seed %s holds %d shoots of %s allocatable (%d already leaving), above the high mark of %.0f%%; seeds under %.0f%% take shoots",
		state.Seed.Name, state.Usage, alloc.String(), state.Leaving, 100*m.High, 100*m.Low)
	shoots, next := state.Improvable(func(*v1alpha1.Shoot) bool { return true })
	var movable []*v1alpha1.Shoot
	for _, s := range state.Shoots {
		if !framework.EvictionProtected(s) {
			movable = append(movable, s)
		}
	}
	shares, taken := framework.ProjectShares(movable, excess), map[string]int{}
	out := make([]framework.Candidate, 0, len(shoots))
	for _, s := range shoots {
		if taken[s.Namespace] >= shares[s.Namespace] {
			continue
		}
		taken[s.Namespace]++
		out = append(out, framework.Candidate{
			Shoot: s, Reason: reason, Cause: "above the high mark",
			Urgency:  maintenance.Deferrable,
			Improves: toLowSeed(m),
		})
	}
	res := framework.Result{Candidates: out, Want: excess}
	if !next.IsZero() {
		// Which shoots may move changes when a window opens or closes: the
		// one that improves may be among them.
		res.RequeueAfter = next.Sub(state.Now)
	}
	return res
}

// toLowSeed accepts a move to a seed under the low mark that stays at or
// under the high mark with the shoot.
type toLowSeed Marks

// Accepts implements framework.Improvement.
func (t toLowSeed) Accepts(mv framework.Move) string {
	before, ok := framework.Utilisation(mv.To, mv.ToUsage)
	if !ok {
		return fmt.Sprintf("the scheduler would put it on seed %s, which declares no allocatable shoots", mv.To.Name)
	}
	if before >= t.Low {
		return fmt.Sprintf("the scheduler would put it on seed %s, at %.0f%%, not under the low mark of %.0f%%", mv.To.Name, 100*before, 100*t.Low)
	}
	if after, _ := framework.Utilisation(mv.To, mv.ToUsage+1); after > t.High {
		return fmt.Sprintf("the scheduler would put it on seed %s, which it would take to %.0f%%, above the high mark of %.0f%%", mv.To.Name, 100*after, 100*t.High)
	}
	return ""
}
