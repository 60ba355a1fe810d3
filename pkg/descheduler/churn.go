package descheduler

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/algorithm"
	"github.com/graft-dev/graft/pkg/descheduler/framework"
)

// churnLimits are the limits of the enabled improving plugins
// (framework.ChurnLimited), by name. The evictor owns them with every other
// limit on evictions.
type churnLimits map[string]framework.Churn

func churnLimitsOf(plugins []framework.Plugin) churnLimits {
	out := churnLimits{}
	for _, p := range plugins {
		if c, ok := p.(framework.ChurnLimited); ok {
			out[p.Name()] = c.Churn()
		}
	}
	return out
}

// longestCoolDown is how long eviction records must be kept for the
// cool-downs to hold.
func (l churnLimits) longestCoolDown() time.Duration {
	var out time.Duration
	for _, c := range l {
		out = max(out, c.CoolDown)
	}
	return out
}

// limitedPlugin is the enabled improving plugin a recorded cause names, or "".
func (l churnLimits) limitedPlugin(cause string) string {
	plugin, _, ok := strings.Cut(cause, ": ")
	if _, limited := l[plugin]; !ok || !limited {
		return ""
	}
	return plugin
}

// churnRefusal refuses plugin's moves while it has spent its moves of the
// pass window or of the last hour (then looked at again once a move leaves
// the hour); nil when it has not, or is not an improving plugin.
func (g *gate) churnRefusal(plugin string) *refusal {
	limit, ok := g.churn[plugin]
	if !ok {
		return nil
	}
	now := g.clock.Now()
	g.mu.Lock()
	defer g.mu.Unlock()
	if limit.MaxMovesPerPass > 0 && g.churnPass[plugin] >= limit.MaxMovesPerPass {
		return &refusal{kind: refusedChurn, why: fmt.Sprintf("%s moved %d shoots in this pass window", plugin, limit.MaxMovesPerPass)}
	}
	moves := pruneHour(g.churnHour[plugin], now)
	g.churnHour[plugin] = moves
	if limit.MaxMovesPerHour > 0 && len(moves) >= limit.MaxMovesPerHour {
		return &refusal{kind: refusedChurn, why: fmt.Sprintf("%s moved %d shoots in the last hour", plugin, limit.MaxMovesPerHour), at: moves[0].Add(time.Hour + requeueSlack)}
	}
	return nil
}

// pruneHour drops the moves older than an hour before now from a list
// in time order.
func pruneHour(moves []time.Time, now time.Time) []time.Time {
	i := 0
	for i < len(moves) && !moves[i].After(now.Add(-time.Hour)) {
		i++
	}
	return moves[i:]
}

// recallChurn counts the moves of the last hour that the shoots' signed
// records show, so that a restart or a new leader does not start the hourly
// budgets over.
func (g *gate) recallChurn(each func(func(*v1alpha1.Shoot))) {
	if len(g.churn) == 0 {
		return
	}
	now := g.clock.Now()
	var moves map[string][]time.Time
	each(func(s *v1alpha1.Shoot) {
		if _, ok := s.Annotations[v1alpha1.AnnotationEvictions]; !ok {
			return
		}
		for _, e := range g.records.verified(s) {
			if p := g.churn.limitedPlugin(e.Cause); p != "" && e.At.After(now.Add(-time.Hour)) && !e.At.After(now) {
				if moves == nil {
					moves = map[string][]time.Time{}
				}
				moves[p] = append(moves[p], e.At)
			}
		}
	})
	g.mu.Lock()
	defer g.mu.Unlock()
	for p, ts := range moves {
		all := append(g.churnHour[p], ts...)
		slices.SortFunc(all, time.Time.Compare)
		g.churnHour[p] = all
	}
}

// coolingDown tells whether the descheduler moved the shoot, for any
// cause, by its signed records or by this process's memory, less than
// plugin's cool-down ago, and until when: a move no seed forces never
// follows another soon, as each is a control-plane migration.
func (g *gate) coolingDown(plugin string, shoot *v1alpha1.Shoot) (time.Time, bool) {
	limit, ok := g.churn[plugin]
	if !ok {
		return time.Time{}, false
	}
	now := g.clock.Now()
	var until time.Time
	// What this process moved counts even when the record is gone: on
	// Gardener a tenant can delete its shoot's annotations.
	g.mu.Lock()
	at, moved := g.movedAt[algorithm.ShootKey(shoot)]
	g.mu.Unlock()
	if end := at.Add(limit.CoolDown); moved && end.After(now) {
		until = end
	}
	if _, ok := shoot.Annotations[v1alpha1.AnnotationEvictions]; !ok {
		return until, !until.IsZero()
	}
	for _, e := range g.records.verified(shoot) {
		if end := e.At.Add(limit.CoolDown); end.After(now) && end.After(until) {
			until = end
		}
	}
	return until, !until.IsZero()
}
