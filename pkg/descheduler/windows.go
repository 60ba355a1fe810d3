package descheduler

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/descheduler/framework"
	"github.com/graft-dev/graft/pkg/maintenance"
)

// moveTiming is when one move may happen: an urgent one at once, a
// deferrable one in the shoot's maintenance window or once its deadline has
// passed (maintenance.Timing).
type moveTiming struct {
	urgency  maintenance.Urgency
	window   maintenance.Window
	deadline time.Time
	// live is set for a live migration, which has no downtime and needs no
	// window.
	live bool
}

// at is the timing's answer at now.
func (t moveTiming) at(now time.Time) maintenance.When {
	if t.live {
		return maintenance.When{Now: true, At: now, Why: "a live migration disrupts nobody"}
	}
	return maintenance.Timing(now, t.urgency, t.window, t.deadline)
}

// timing reads a candidate's timing. A window that does not parse (admission
// refuses one on both APIs) is taken as none, and logged.
func (ev *evictor) timing(c framework.Candidate) moveTiming {
	t := moveTiming{urgency: c.Urgency, deadline: c.Deadline}
	if c.Urgency != maintenance.Deferrable {
		return t
	}
	w, err := maintenance.Of(c.Shoot)
	if err != nil {
		klog.V(1).InfoS("Shoot's maintenance window does not parse; taken as none", "shoot", klog.KObj(c.Shoot), "err", err)
	}
	t.window = w
	return t
}

// deferred leaves a deferrable move for later: an EvictionDeferred Event
// once per shoot, cause and due time, and, with requeue, another look at the
// seed when the move is due.
func (ev *evictor) deferred(shoot *v1alpha1.Shoot, seed, plugin, reason, cause string, when maintenance.When, requeue bool) {
	if requeue {
		ev.queue.AddAfter(seed, when.At.Sub(ev.clock.Now())+requeueSlack)
	}
	ev.note(shoot, plugin, ResultDeferred, seed+"|"+cause+"|"+when.At.UTC().String(), EventEvictionDeferred, corev1.EventTypeNormal,
		fmt.Sprintf("%s wants the shoot off seed %s (%s), a move that can wait, due at %s: %s",
			plugin, seed, reason, when.At.UTC().Format(time.RFC3339), when.Why))
}
