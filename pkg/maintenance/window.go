package maintenance

import (
	"fmt"
	"time"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

// layout is Gardener's format of a window's begin and end.
const layout = "150405-0700"

// The bounds of a window's length, as Gardener validates it.
const (
	MinDuration = 30 * time.Minute
	MaxDuration = 6 * time.Hour
)

const day = 24 * time.Hour

// Window is a daily time window, kept as its begin's offset into the UTC
// day and its length. The zero Window is "always": a shoot without a window
// may be disrupted at any time.
type Window struct {
	begin    time.Duration
	duration time.Duration
}

// Always is the window of a shoot that names none.
var Always = Window{}

// Parse reads a window as Gardener writes it (begin and end HHMMSS+ZZZZ)
// and checks it as Gardener does: an end not after the begin (in UTC) spans
// midnight, and the window lasts from 30 minutes to 6 hours.
func Parse(begin, end string) (Window, error) {
	b, err := parseTime(begin)
	if err != nil {
		return Window{}, fmt.Errorf("begin %q: %w", begin, err)
	}
	e, err := parseTime(end)
	if err != nil {
		return Window{}, fmt.Errorf("end %q: %w", end, err)
	}
	d := e - b
	if d <= 0 {
		d += day
	}
	if d < MinDuration || d > MaxDuration {
		return Window{}, fmt.Errorf("the window %s-%s lasts %s: it must last from %s to %s", begin, end, d, MinDuration, MaxDuration)
	}
	return Window{begin: b, duration: d}, nil
}

// parseTime returns a time of day with its offset as the offset into the
// UTC day.
func parseTime(value string) (time.Duration, error) {
	if len(value) != len("150405+0000") {
		return 0, fmt.Errorf("must be HHMMSS+ZZZZ, such as 220000+0100")
	}
	t, err := time.Parse(layout, value)
	if err != nil {
		return 0, fmt.Errorf("must be HHMMSS+ZZZZ, such as 220000+0100")
	}
	t = t.UTC()
	return time.Duration(t.Hour())*time.Hour + time.Duration(t.Minute())*time.Minute + time.Duration(t.Second())*time.Second, nil
}

// Of returns the shoot's window: Always when it names none, and an error
// (with Always) when it names one that does not parse, which admission
// should have refused.
func Of(shoot *v1alpha1.Shoot) (Window, error) {
	m := shoot.Spec.Maintenance
	if m == nil || m.TimeWindow == nil {
		return Always, nil
	}
	w, err := Parse(m.TimeWindow.Begin, m.TimeWindow.End)
	if err != nil {
		return Always, fmt.Errorf("spec.maintenance.timeWindow: %w", err)
	}
	return w, nil
}

// IsAlways reports whether the window is open at every time.
func (w Window) IsAlways() bool { return w.duration == 0 }

// Duration is how long the window lasts each day.
func (w Window) Duration() time.Duration {
	if w.IsAlways() {
		return day
	}
	return w.duration
}

// Contains reports whether t falls in the window, its begin and end
// included, to the second as Gardener reads it.
func (w Window) Contains(t time.Time) bool {
	if w.IsAlways() {
		return true
	}
	return w.sinceBegin(t) <= w.duration
}

// sinceBegin is how long ago, in [0, 24h), the window last opened before
// or at t (to the second).
func (w Window) sinceBegin(t time.Time) time.Duration {
	t = t.UTC().Truncate(time.Second)
	midnight := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	d := t.Sub(midnight) - w.begin
	if d < 0 {
		d += day
	}
	return d
}

// Next returns the first moment at or after t at which the window is open,
// and when that opening closes: t itself while the window is open.
func (w Window) Next(t time.Time) (start, end time.Time) {
	if w.IsAlways() {
		return t, t.Add(day)
	}
	since := w.sinceBegin(t)
	opened := t.UTC().Truncate(time.Second).Add(-since)
	if since <= w.duration {
		return t, opened.Add(w.duration)
	}
	opened = opened.Add(day)
	return opened, opened.Add(w.duration)
}

// String writes the window in UTC, as HH:MM-HH:MM UTC.
func (w Window) String() string {
	if w.IsAlways() {
		return "any time"
	}
	b := time.Time{}.Add(w.begin)
	e := b.Add(w.duration)
	return b.Format("15:04:05") + "-" + e.Format("15:04:05") + " UTC"
}
