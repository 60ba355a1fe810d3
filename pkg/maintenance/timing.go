package maintenance

import (
	"fmt"
	"time"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

// Urgency is the class of a move's cause.
type Urgency int

const (
	// Urgent moves (an untolerated NoExecute taint, a toleration run out,
	// a not-ready seed's evacuation) happen at once.
	Urgent Urgency = iota
	// Deferrable moves (over capacity, a drain with a deadline, moves that
	// only improve the landscape) happen in the shoot's maintenance window,
	// or once their deadline has passed if the window did not come first.
	Deferrable
)

// String names the class as the plan, Events and metrics write it.
func (u Urgency) String() string {
	if u == Deferrable {
		return "deferrable"
	}
	return "urgent"
}

// Live is when a live migration between gardenlets known to run the live
// flow may happen: at once, since it has no downtime. Only such a move is
// said to disrupt nobody.
func Live(now time.Time) When {
	return When{Now: true, At: now, Why: LiveWhy}
}

// LiveWhy is why a live move goes at once.
const LiveWhy = "a live migration between gardenlets that run the live flow disrupts nobody"

// When is when a move may happen.
type When struct {
	// Now is set when the move may happen at the time asked.
	Now bool
	// At is the earliest time the move may happen: the time asked when Now.
	At time.Time
	// Until is, for a move that may happen in the window, when that
	// opening of the window closes; zero otherwise.
	Until time.Time
	// Why says what decided At, for the plan and the shoot's Event.
	Why string
	// Held is set when the move waits for the shoot to be healthy again
	// (Move.Failed) rather than for a time; At is then its deadline, zero
	// when it has none.
	Held bool
}

// Move is what decides when one move of a shoot may happen: its urgency,
// the shoot's window, the deadline, and whether its last operation failed.
type Move struct {
	Urgency  Urgency
	Window   Window
	Deadline time.Time
	// Failed is set when the shoot's last operation failed. Gardener does
	// not reconcile such a shoot again until it is retried or its spec
	// changes, and whatever broke it likely breaks its migration too: a
	// deferrable move of it waits until it is healthy again, never past its
	// deadline. A tenant can break its own shoot (its credentials) at will,
	// so the deadline must still end a drain.
	Failed bool
}

// MoveOf reads a shoot's window and last operation for a move of the given
// urgency and deadline. A window that does not parse (admission refuses
// one on both APIs) is taken as none and returned as the error.
func MoveOf(shoot *v1alpha1.Shoot, u Urgency, deadline time.Time) (Move, error) {
	w, err := Of(shoot)
	return Move{Urgency: u, Window: w, Deadline: deadline, Failed: LastOperationFailed(shoot)}, err
}

// LastOperationFailed tells whether the shoot's last operation failed.
func LastOperationFailed(shoot *v1alpha1.Shoot) bool {
	op := shoot.Status.LastOperation
	return op != nil && op.State == v1alpha1.LastOperationStateFailed
}

// At decides when the move may happen, at now: Timing, except that a
// deferrable move of a failed shoot is held until its deadline.
func (m Move) At(now time.Time) When {
	when := Timing(now, m.Urgency, m.Window, m.Deadline)
	if !m.Failed || m.Urgency == Urgent {
		return when
	}
	if when.Now && !m.Deadline.IsZero() && !now.Before(m.Deadline) {
		when.Why += ", although its last operation failed"
		return when
	}
	held := When{At: m.Deadline, Held: true, Why: "its last operation failed: it moves once the shoot is healthy again"}
	if !m.Deadline.IsZero() {
		held.Why += ", or at its deadline " + stamp(m.Deadline)
	}
	return held
}

// Timing decides when a move of the given urgency may happen, at now, for a
// shoot with window w and a deadline (zero: none): an urgent move at once; a
// deferrable one inside the window, or once the deadline has passed,
// whichever comes first.
func Timing(now time.Time, u Urgency, w Window, deadline time.Time) When {
	if u == Urgent {
		return When{Now: true, At: now, Why: "urgent"}
	}
	if !deadline.IsZero() && !now.Before(deadline) {
		return When{Now: true, At: now, Why: "its deadline " + stamp(deadline) + " has passed"}
	}
	if w.IsAlways() {
		return When{Now: true, At: now, Why: "the shoot names no maintenance window"}
	}
	start, end := w.Next(now)
	if start.Equal(now) {
		return When{Now: true, At: now, Until: end, Why: fmt.Sprintf("inside its maintenance window (%s)", w)}
	}
	if !deadline.IsZero() && deadline.Before(start) {
		return When{At: deadline, Why: fmt.Sprintf("its deadline %s comes before its next maintenance window (%s)", stamp(deadline), w)}
	}
	return When{At: start, Until: end, Why: fmt.Sprintf("waits for its maintenance window (%s)", w)}
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }
