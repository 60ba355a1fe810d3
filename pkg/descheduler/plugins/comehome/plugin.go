package comehome

import (
	"fmt"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/descheduler/framework"
	"github.com/graft-dev/graft/pkg/maintenance"
)

// Plugin moves shoots placed away from their region to a closer seed.
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

// ActsOn implements framework.SeedFilter: the seed hosts shoots of another
// region.
func (p *Plugin) ActsOn(state *framework.SeedState) bool { return state.Away > 0 }

// Evaluate implements framework.Plugin: the shoots of another region than
// the seed's that may move now (in their maintenance window, not protected,
// last operation not failed). Whether a closer seed takes each is the
// descheduler's to find out.
func (p *Plugin) Evaluate(state *framework.SeedState) framework.Result {
	seedRegion := state.Seed.Spec.Provider.Region
	shoots, next := state.Improvable(func(s *v1alpha1.Shoot) bool { return s.Spec.Region != seedRegion })
	out := make([]framework.Candidate, 0, len(shoots))
	for _, s := range shoots {
		out = append(out, framework.Candidate{
			Shoot:    s,
			Reason:   fmt.Sprintf("the shoot's region is %s, seed %s is in %s", s.Spec.Region, state.Seed.Name, seedRegion),
			Cause:    "away from its region",
			Urgency:  maintenance.Deferrable,
			Improves: closer{},
		})
	}
	res := framework.Result{Candidates: out}
	if !next.IsZero() {
		res.RequeueAfter = next.Sub(state.Now)
	}
	return res
}

// closer accepts a move to a seed nearer the shoot's region.
type closer struct{}

// Accepts implements framework.Improvement.
func (closer) Accepts(mv framework.Move) string {
	if !mv.Closer {
		return fmt.Sprintf("the scheduler would put it on seed %s, no closer to region %s than seed %s", mv.To.Name, mv.Shoot.Spec.Region, mv.From.Name)
	}
	return ""
}
