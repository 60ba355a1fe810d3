package maintenance

import (
	"fmt"
	"time"
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
