package noexecutetaints

import (
	"fmt"
	"slices"
	"time"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"
	"github.com/graft-dev/graft/pkg/algorithm"
	"github.com/graft-dev/graft/pkg/descheduler/framework"
	"github.com/graft-dev/graft/pkg/maintenance"
)

// Plugin evicts shoots that do not, or no longer, tolerate their seed's
// NoExecute taints.
type Plugin struct {
	args Args
}

var (
	_ framework.Plugin     = &Plugin{}
	_ framework.SeedFilter = &Plugin{}
)

// New returns the plugin for validated arguments.
func New(args Args) *Plugin { return &Plugin{args: args} }

// Name implements framework.Plugin.
func (p *Plugin) Name() string { return Name }

// Evaluate implements framework.Plugin. Shoots that must leave now are
// returned, those with an untolerated taint first; the earliest toleration
// that runs out later sets RequeueAfter.
func (p *Plugin) Evaluate(state *framework.SeedState) framework.Result {
	seed := p.relevant(state.Seed)
	if seed == nil {
		return framework.Result{}
	}
	var untolerated, expired []framework.Candidate
	var requeue time.Duration
	windows := drainDeadline(state.Seed)
	for _, shoot := range state.Shoots {
		if framework.EvictionProtected(shoot) && !p.args.Force {
			continue
		}
		status := algorithm.CheckNoExecute(shoot, seed, func(t v1alpha1.SeedTaint) time.Time {
			return state.TolerationStart(shoot, t)
		})
		switch {
		case len(status.Untolerated) > 0:
			cause := UrgentFirst(seed, status.Untolerated)
			untolerated = append(untolerated, windows.classify(framework.Candidate{
				Shoot:  shoot,
				Reason: fmt.Sprintf("seed %s has NoExecute taint %s that the shoot does not tolerate", seed.Name, helper.FormatTaint(cause)),
				Cause:  helper.FormatTaint(cause),
				Force:  p.args.Force,
			}, cause))
		case status.MustLeave(state.Now):
			expired = append(expired, windows.classify(framework.Candidate{
				Shoot: shoot,
				Reason: fmt.Sprintf("the shoot's toleration of NoExecute taint %s on seed %s ran out at %s",
					helper.FormatTaint(*status.LimitingTaint), seed.Name, status.StayUntil.UTC().Format(time.RFC3339)),
				Cause: helper.FormatTaint(*status.LimitingTaint),
				Force: p.args.Force,
			}, *status.LimitingTaint))
		case status.LimitingTaint != nil:
			if wait := status.StayUntil.Sub(state.Now); requeue == 0 || wait < requeue {
				requeue = wait
			}
		}
	}
	return framework.Result{Candidates: append(untolerated, expired...), RequeueAfter: requeue}
}

// ActsOn implements framework.SeedFilter: only a seed with a NoExecute taint
// the plugin acts on can have a shoot to evict or a toleration to wait for.
func (p *Plugin) ActsOn(state *framework.SeedState) bool {
	return p.relevant(state.Seed) != nil
}

// relevant returns the seed with only the NoExecute taints this plugin acts
// on, or nil when there are none.
func (p *Plugin) relevant(seed *v1alpha1.Seed) *v1alpha1.Seed {
	var taints []v1alpha1.SeedTaint
	for _, t := range seed.Spec.Taints {
		if helper.TaintEffectOf(t) != v1alpha1.TaintEffectNoExecute {
			continue
		}
		if len(p.args.TaintKeys) > 0 && !slices.Contains(p.args.TaintKeys, t.Key) {
			continue
		}
		taints = append(taints, t)
	}
	if len(taints) == 0 {
		return nil
	}
	if len(taints) == len(seed.Spec.Taints) {
		return seed
	}
	// A shallow copy is enough: only the taint list differs and it is new.
	out := *seed
	out.Spec.Taints = taints
	return &out
}

// windowedDrain is a drain in maintenance windows: the seed's drain taint
// (seed.gardener.cloud/unschedulable:NoExecute) with a deadline
// (graft.dev/drain-deadline).
type windowedDrain struct {
	on       bool
	deadline time.Time
	invalid  string
}

// drainDeadline reads the seed's drain deadline (DrainInWindows).
func drainDeadline(seed *v1alpha1.Seed) windowedDrain {
	deadline, on, invalid := DrainInWindows(seed)
	return windowedDrain{on: on, deadline: deadline, invalid: invalid}
}

// DrainInWindows tells whether the seed is drained in maintenance windows
// (annotated graft.dev/drain-deadline) and until when. An annotation that
// does not parse still makes the drain wait for windows (its intent),
// without a deadline, and invalid says so: a typo must not move every shoot
// at once.
func DrainInWindows(seed *v1alpha1.Seed) (deadline time.Time, windowed bool, invalid string) {
	v, ok := seed.Annotations[v1alpha1.AnnotationDrainDeadline]
	if !ok {
		return time.Time{}, false, ""
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return time.Time{}, true, fmt.Sprintf("annotation %s=%q is not an RFC 3339 time, so the drain has no deadline", v1alpha1.AnnotationDrainDeadline, algorithm.Clip(v))
	}
	return t, true, ""
}

// classify makes a move for the drain taint deferrable until the deadline;
// any other taint's move stays urgent.
func (d windowedDrain) classify(c framework.Candidate, taint v1alpha1.SeedTaint) framework.Candidate {
	if c.Urgency, c.Deadline = d.urgency(taint); c.Urgency == maintenance.Urgent {
		return c
	}
	if d.invalid != "" {
		c.Reason += "; " + d.invalid
	} else {
		c.Reason += fmt.Sprintf(", drained in maintenance windows until %s", d.deadline.UTC().Format(time.RFC3339))
	}
	return c
}

func (d windowedDrain) urgency(taint v1alpha1.SeedTaint) (maintenance.Urgency, time.Time) {
	if !d.on || taint.Key != v1alpha1.SeedTaintUnschedulable {
		return maintenance.Urgent, time.Time{}
	}
	return maintenance.Deferrable, d.deadline
}

// MoveUrgency is the class of the move a NoExecute taint of the seed causes,
// and its deadline: deferrable for the drain taint of a drain in
// maintenance windows, urgent for any other.
func MoveUrgency(seed *v1alpha1.Seed, taint v1alpha1.SeedTaint) (maintenance.Urgency, time.Time) {
	return drainDeadline(seed).urgency(taint)
}

// UrgentFirst is the taint of untolerated that the move answers: the first
// whose move is urgent, or else the first. A drain in windows must not delay
// a shoot that another taint sends away at once.
func UrgentFirst(seed *v1alpha1.Seed, untolerated []v1alpha1.SeedTaint) v1alpha1.SeedTaint {
	for _, t := range untolerated {
		if u, _ := MoveUrgency(seed, t); u == maintenance.Urgent {
			return t
		}
	}
	return untolerated[0]
}
