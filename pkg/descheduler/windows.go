package descheduler

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/algorithm"
	"github.com/graft-dev/graft/pkg/descheduler/framework"
	"github.com/graft-dev/graft/pkg/maintenance"
)

// moveTiming is when one move may happen: an urgent one at once, a
// deferrable one in the shoot's maintenance window or once its deadline has
// passed, held while the shoot's last operation failed (maintenance.Move).
type moveTiming struct {
	maintenance.Move
	// live is set for a live migration between gardenlets known to run the
	// live flow (algorithm.LiveFlow), which has no downtime and needs no
	// window.
	live bool
}

// at is the timing's answer at now.
func (t moveTiming) at(now time.Time) maintenance.When {
	if t.live {
		return maintenance.Live(now)
	}
	return t.Move.At(now)
}

// timing reads a candidate's timing. A window that does not parse (admission
// refuses one on both APIs) is taken as none, and logged.
func (g *gate) timing(c framework.Candidate) moveTiming {
	deadline := c.Deadline
	if c.Urgency == maintenance.Deferrable && deadline.IsZero() && c.MaxDeferral > 0 {
		deadline = g.firstAsked(c).Add(c.MaxDeferral)
	}
	m, err := maintenance.MoveOf(c.Shoot, c.Urgency, deadline)
	if err != nil && c.Urgency == maintenance.Deferrable {
		klog.V(1).InfoS("Shoot's maintenance window does not parse; taken as none", "shoot", klog.KObj(c.Shoot), "err", err)
	}
	return moveTiming{Move: m}
}

// asked is when a move without a deadline was first and last looked at.
type asked struct{ first, last time.Time }

// firstAsked is when the descheduler first looked at the candidate's move
// (shoot, plugin's cause): its MaxDeferral counts from then. A move not
// looked at for longer than its MaxDeferral is a new one (the seed went
// back under its allocatable in between). Process memory: a restart starts
// the count over, which a tenant cannot cause.
func (g *gate) firstAsked(c framework.Candidate) time.Time {
	now := g.clock.Now()
	key := algorithm.ShootKey(c.Shoot) + "|" + c.Cause
	g.mu.Lock()
	defer g.mu.Unlock()
	a, ok := g.asked[key]
	if !ok || now.Sub(a.last) > c.MaxDeferral {
		a.first = now
	}
	a.last = now
	g.asked[key] = a
	return a.first
}

// reasked counts the moves asked at or after since as asked again at now,
// as the passes of the ticks in between would have (a planner skips them).
func (g *gate) reasked(since, now time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for key, a := range g.asked {
		if !a.last.Before(since) {
			a.last = now
			g.asked[key] = a
		}
	}
}

// heldFailed holds a deferrable move of a failed shoot (an
// EvictionSkipped Warning), looked at again when its window opens.
func heldFailed(plugin, seed, reason, cause string, shoot *v1alpha1.Shoot, when maintenance.When) *refusal {
	desc := ""
	if op := shoot.Status.LastOperation; op != nil {
		desc = algorithm.Clip(op.Description)
	}
	no := &refusal{kind: refusedFailed, why: when.Why, event: EventEvictionSkipped, eventType: corev1.EventTypeWarning, same: seed + "|" + cause,
		msg: fmt.Sprintf("%s wants the shoot off seed %s (%s), a move that can wait, but the shoot's last operation failed (%s): %s",
			plugin, seed, reason, desc, strings.TrimPrefix(when.Why, "its last operation failed: "))}
	if !when.At.IsZero() {
		no.at = when.At.Add(requeueSlack)
	}
	return no
}

// deferred leaves a deferrable move for later: an EvictionDeferred Event
// once per shoot, cause and due time, and another look at the seed when the
// move is due.
func deferred(plugin, seed, reason, cause string, when maintenance.When) *refusal {
	return &refusal{kind: refusedDeferred, why: when.Why, at: when.At.Add(requeueSlack),
		event: EventEvictionDeferred, eventType: corev1.EventTypeNormal, same: seed + "|" + cause + "|" + when.At.UTC().String(),
		msg: fmt.Sprintf("%s wants the shoot off seed %s (%s), a move that can wait, due at %s: %s",
			plugin, seed, reason, when.At.UTC().Format(time.RFC3339), when.Why)}
}
