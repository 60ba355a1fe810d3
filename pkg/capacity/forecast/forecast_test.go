package forecast

import (
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)

// TestRecordedSeries feeds a recorded series of arrivals, one shoot every
// 20 minutes for a day (at 10, 30 and 50 past each hour) and then a burst,
// through a pool's tally, and checks the rate and the time to full at
// several moments.
func TestRecordedSeries(t *testing.T) {
	var series []time.Time
	for i := range 72 { // 3 an hour for 24 hours
		series = append(series, t0.Add(time.Duration(i)*20*time.Minute+10*time.Minute))
	}
	at := func(now time.Time, window time.Duration, free, waiting int) Forecast {
		p := Pool{Kind: KindPool, Name: "p"}
		tally := NewTally(now, window)
		slots := int64(free)
		tally.Seed(p, Seed{Allocatable: &slots, TakesShoots: true})
		for range waiting {
			tally.Waiting(p)
		}
		for _, a := range series {
			tally.Arrived(p, a)
		}
		return tally.Summaries()[0].Forecast
	}
	now := t0.Add(24 * time.Hour)
	for _, tc := range []struct {
		name          string
		window        time.Duration
		free, waiting int
		wantPerHour   float64
		wantIn        time.Duration
		wantFull      bool
		wantNever     bool
	}{
		{name: "30 free at 3 an hour", window: 6 * time.Hour, free: 30, wantPerHour: 3, wantIn: 10 * time.Hour},
		{name: "the waiting shoots take their slots first", window: 6 * time.Hour, free: 30, waiting: 12, wantPerHour: 3, wantIn: 6 * time.Hour},
		{name: "a day's window, the same rate", window: 24 * time.Hour, free: 9, wantPerHour: 3, wantIn: 3 * time.Hour},
		{name: "full now", window: 6 * time.Hour, free: 5, waiting: 5, wantPerHour: 3, wantFull: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := at(now, tc.window, tc.free, tc.waiting)
			if f.PerHour != tc.wantPerHour || f.FullIn != tc.wantIn || f.Full != tc.wantFull || f.Never != tc.wantNever {
				t.Errorf("got %+v; want %.1f/h, full in %s, full %v, never %v", f, tc.wantPerHour, tc.wantIn, tc.wantFull, tc.wantNever)
			}
		})
	}
	// A burst of 12 in the last hour: over an hour's window 15 an hour.
	for i := range 12 {
		series = append(series, now.Add(-time.Duration(i+1)*time.Minute))
	}
	if f := at(now, time.Hour, 30, 0); f.PerHour != 15 || f.FullIn != 2*time.Hour {
		t.Errorf("after the burst: %+v, want 15/h and full in 2h", f)
	}
	// Nothing for a day: never full at that rate.
	if f := at(now.Add(48*time.Hour), 6*time.Hour, 30, 0); !f.Never || f.PerHour != 0 {
		t.Errorf("a quiet day: %+v, want never full", f)
	}
}

// TestTally sums a region's seeds, leaving out the free slots of a seed
// that takes no shoots, and counts arrivals only within the window.
func TestTally(t *testing.T) {
	now := t0.Add(24 * time.Hour)
	ten, five := int64(10), int64(5)
	region := Pool{Kind: KindRegion, Name: "eu-west-1"}
	pool := Pool{Kind: KindPool, Name: "aws-eu"}
	tally := NewTally(now, 2*time.Hour)
	tally.Seed(region, Seed{Allocatable: &ten, Usage: 6, TakesShoots: true})
	tally.Seed(region, Seed{Allocatable: &ten, Usage: 12, TakesShoots: true}) // over: no slot, not minus two
	tally.Seed(region, Seed{Allocatable: &five, Usage: 0, TakesShoots: false})
	tally.Seed(pool, Seed{Usage: 3, TakesShoots: true}) // no allocatable: no limit
	tally.Waiting(region)
	for _, at := range []time.Duration{-3 * time.Hour, -2 * time.Hour, -90 * time.Minute, -30 * time.Minute, time.Minute} {
		tally.Arrived(region, now.Add(at))
	}
	got := tally.Summaries()
	if len(got) != 2 || got[0].Pool != pool || got[1].Pool != region {
		t.Fatalf("summaries %+v, want the pool then the region", got)
	}
	r := got[1]
	if r.Seeds != 3 || r.Allocatable != 20 || r.Usage != 18 || r.Free != 4 || r.Waiting != 1 {
		t.Errorf("region %+v, want 3 seeds, 20 allocatable, 18 used, 4 free, 1 waiting", r)
	}
	// Two arrivals within the last two hours: 1 an hour, 3 slots left after
	// the waiting shoot.
	if r.PerHour != 1 || r.FullIn != 3*time.Hour || r.Full || r.Never {
		t.Errorf("region forecast %+v, want 1 an hour and full in 3h", r.Forecast)
	}
	if !r.Within(3*time.Hour) || r.Within(2*time.Hour) {
		t.Errorf("Within: full in %s should count within 3h and not within 2h", r.FullIn)
	}
	if p := got[0]; !p.Unbounded || !p.Never || p.Within(1000*time.Hour) {
		t.Errorf("pool without allocatable %+v, want unbounded and never full", p)
	}
}
