package maintenance

import (
	"strings"
	"testing"
	"time"
)

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func mustParse(t *testing.T, begin, end string) Window {
	t.Helper()
	w, err := Parse(begin, end)
	if err != nil {
		t.Fatalf("Parse(%s, %s): %v", begin, end, err)
	}
	return w
}

func TestParseRules(t *testing.T) {
	for _, tc := range []struct {
		begin, end string
		want       string // an error's part, "" for none
	}{
		{"220000+0000", "230000+0000", ""},
		{"230000+0000", "010000+0000", ""}, // across midnight
		{"220000+0100", "230000+0100", ""}, // 21:00-22:00 UTC
		{"003000+0200", "013000+0200", ""}, // 22:30-23:30 UTC the day before
		{"220000+0000", "223000+0000", ""}, // 30m, the shortest
		{"220000+0000", "040000+0000", ""}, // 6h, the longest
		{"220000+0000", "222959+0000", "lasts 29m59s"},
		{"220000+0000", "040001+0000", "lasts 6h0m1s"},
		{"220000+0000", "220000+0000", "lasts 24h0m0s"},
		{"22:00:00", "230000+0000", "begin \"22:00:00\": must be HHMMSS+ZZZZ"},
		{"220000+0000", "240000+0000", "end \"240000+0000\""},
		{"2200+0000", "230000+0000", "must be HHMMSS+ZZZZ"},
	} {
		_, err := Parse(tc.begin, tc.end)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("Parse(%s, %s): %v", tc.begin, tc.end, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("Parse(%s, %s) = %v, want an error with %q", tc.begin, tc.end, err, tc.want)
		}
	}
}

func TestContainsAndNext(t *testing.T) {
	night := mustParse(t, "230000+0000", "010000+0000")
	evening := mustParse(t, "220000+0100", "230000+0100") // 21:00-22:00 UTC
	for _, tc := range []struct {
		name      string
		w         Window
		t         string
		in        bool
		nextStart string
		nextEnd   string
	}{
		{"before the window", night, "2026-11-29T12:00:00Z", false, "2026-11-29T23:00:00Z", "2026-11-30T01:00:00Z"},
		{"at the begin", night, "2026-11-29T23:00:00Z", true, "2026-11-29T23:00:00Z", "2026-11-30T01:00:00Z"},
		{"after midnight", night, "2026-11-30T00:30:00Z", true, "2026-11-30T00:30:00Z", "2026-11-30T01:00:00Z"},
		{"at the end", night, "2026-11-30T01:00:00Z", true, "2026-11-30T01:00:00Z", "2026-11-30T01:00:00Z"},
		{"a second after the end", night, "2026-11-30T01:00:01Z", false, "2026-11-30T23:00:00Z", "2026-12-01T01:00:00Z"},
		{"offset, inside", evening, "2026-11-29T21:30:00Z", true, "2026-11-29T21:30:00Z", "2026-11-29T22:00:00Z"},
		{"offset, local time is not UTC", evening, "2026-11-29T22:30:00Z", false, "2026-11-30T21:00:00Z", "2026-11-30T22:00:00Z"},
		{"another time zone asked", evening, "2026-11-29T22:30:00+01:00", true, "2026-11-29T22:30:00+01:00", "2026-11-29T22:00:00Z"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now := at(tc.t)
			if got := tc.w.Contains(now); got != tc.in {
				t.Errorf("Contains(%s) = %v, want %v", tc.t, got, tc.in)
			}
			start, end := tc.w.Next(now)
			if !start.Equal(at(tc.nextStart)) || !end.Equal(at(tc.nextEnd)) {
				t.Errorf("Next(%s) = %s, %s; want %s, %s", tc.t, start, end, tc.nextStart, tc.nextEnd)
			}
		})
	}
	if !Always.Contains(at("2026-11-29T12:00:00Z")) || Always.String() != "any time" {
		t.Error("Always must be open at every time")
	}
}

func TestTiming(t *testing.T) {
	w := mustParse(t, "230000+0000", "010000+0000")
	now := at("2026-11-29T12:00:00Z")
	for _, tc := range []struct {
		name     string
		u        Urgency
		w        Window
		deadline time.Time
		now      bool
		at       string
		why      string
	}{
		{"urgent goes now", Urgent, w, time.Time{}, true, "2026-11-29T12:00:00Z", "urgent"},
		{"deferrable waits for the window", Deferrable, w, time.Time{}, false, "2026-11-29T23:00:00Z", "waits for its maintenance window (23:00:00-01:00:00 UTC)"},
		{"the window comes before the deadline", Deferrable, w, at("2026-12-01T00:00:00Z"), false, "2026-11-29T23:00:00Z", "waits for its maintenance window"},
		{"the deadline comes first", Deferrable, w, at("2026-11-29T18:00:00Z"), false, "2026-11-29T18:00:00Z", "its deadline 2026-11-29T18:00:00Z comes before"},
		{"the deadline has passed", Deferrable, w, at("2026-11-29T12:00:00Z"), true, "2026-11-29T12:00:00Z", "has passed"},
		{"no window", Deferrable, Always, time.Time{}, true, "2026-11-29T12:00:00Z", "names no maintenance window"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Timing(now, tc.u, tc.w, tc.deadline)
			if got.Now != tc.now || !got.At.Equal(at(tc.at)) || !strings.Contains(got.Why, tc.why) {
				t.Errorf("Timing = %+v; want now %v at %s why %q", got, tc.now, tc.at, tc.why)
			}
		})
	}
	inside := Timing(at("2026-11-30T00:10:00Z"), Deferrable, w, time.Time{})
	if !inside.Now || !inside.Until.Equal(at("2026-11-30T01:00:00Z")) {
		t.Errorf("inside the window: %+v", inside)
	}
}

// TestMoveOfAFailedShoot: a deferrable move of a shoot whose last operation
// failed is held (even in its window, even with no window) until its
// deadline, and goes once the deadline has passed; an urgent one goes now.
func TestMoveOfAFailedShoot(t *testing.T) {
	w := mustParse(t, "110000+0000", "130000+0000") // open at now
	now := at("2026-11-29T12:00:00Z")
	for _, tc := range []struct {
		name string
		m    Move
		now  bool
		held bool
		at   string
		why  string
	}{
		{"urgent goes now", Move{Urgency: Urgent, Window: w, Failed: true}, true, false, "2026-11-29T12:00:00Z", "urgent"},
		{"held in its window until the deadline", Move{Urgency: Deferrable, Window: w, Deadline: at("2026-11-30T08:00:00Z"), Failed: true}, false, true, "2026-11-30T08:00:00Z", "healthy again, or at its deadline 2026-11-30T08:00:00Z"},
		{"held without a deadline", Move{Urgency: Deferrable, Window: Always, Failed: true}, false, true, "0001-01-01T00:00:00Z", "its last operation failed: it moves once the shoot is healthy again"},
		{"goes once the deadline passed", Move{Urgency: Deferrable, Window: w, Deadline: at("2026-11-29T11:00:00Z"), Failed: true}, true, false, "2026-11-29T12:00:00Z", "has passed, although its last operation failed"},
		{"a healthy shoot is timed as Timing times it", Move{Urgency: Deferrable, Window: w}, true, false, "2026-11-29T12:00:00Z", "inside its maintenance window"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.m.At(now)
			if got.Now != tc.now || got.Held != tc.held || !got.At.Equal(at(tc.at)) || !strings.Contains(got.Why, tc.why) {
				t.Errorf("At = %+v; want now %v held %v at %s why %q", got, tc.now, tc.held, tc.at, tc.why)
			}
		})
	}
}
