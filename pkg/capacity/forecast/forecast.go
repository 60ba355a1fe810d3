package forecast

import (
	"math"
	"slices"
	"time"
)

// Arrivals keeps the times new shoots came to a pool within the longest
// window asked of it, oldest first. Not safe for concurrent use.
type Arrivals struct {
	// Keep is how long an arrival is kept.
	Keep  time.Duration
	times []time.Time
}

// Add records an arrival at t; one older than Keep before the newest is
// dropped, and one out of order is put in its place.
func (a *Arrivals) Add(t time.Time) {
	i, _ := slices.BinarySearchFunc(a.times, t, time.Time.Compare)
	a.times = slices.Insert(a.times, i, t)
	a.trim(a.times[len(a.times)-1])
}

// Since counts the arrivals after from, up to and including now.
func (a *Arrivals) Since(from, now time.Time) int {
	lo, _ := slices.BinarySearchFunc(a.times, from, func(t, target time.Time) int {
		if !t.After(target) {
			return -1
		}
		return 1
	})
	hi, _ := slices.BinarySearchFunc(a.times, now, func(t, target time.Time) int {
		if !t.After(target) {
			return -1
		}
		return 1
	})
	return max(0, hi-lo)
}

func (a *Arrivals) trim(newest time.Time) {
	cut := 0
	for cut < len(a.times) && newest.Sub(a.times[cut]) > a.Keep {
		cut++
	}
	a.times = a.times[cut:]
}

// Input is what a pool's forecast is made of.
type Input struct {
	Now time.Time
	// Window is how far back the arrival rate is measured.
	Window time.Duration
	// Free is the pool's allocatable shoots minus the shoots counted on its
	// seeds that take shoots now; Waiting the shoots that wait for capacity
	// alone (no other filter refuses every seed of the pool).
	Free, Waiting int
	// Arrivals are the new shoots that came to the pool (placed or waiting).
	Arrivals *Arrivals
}

// Forecast is a pool's outlook.
type Forecast struct {
	Free, Waiting int
	// PerHour is the arrival rate over the window.
	PerHour float64
	// Full is set when the waiting shoots take every free slot now.
	Full bool
	// FullIn is when the pool is full at the arrival rate; meaningful when
	// neither Full nor Never.
	FullIn time.Duration
	// Never is set when nothing arrived in the window: at that rate the
	// pool never fills.
	Never bool
}

// Compute makes the forecast: the slots left once the waiting shoots are
// placed, divided by the arrival rate.
func Compute(in Input) Forecast {
	f := Forecast{Free: in.Free, Waiting: in.Waiting}
	if in.Window > 0 && in.Arrivals != nil {
		f.PerHour = float64(in.Arrivals.Since(in.Now.Add(-in.Window), in.Now)) / in.Window.Hours()
	}
	left := in.Free - in.Waiting
	switch {
	case left <= 0:
		f.Full = true
	case f.PerHour == 0:
		f.Never = true
	default:
		hours := float64(left) / f.PerHour
		if hours*float64(time.Hour) >= math.MaxInt64 {
			f.Never = true
		} else {
			f.FullIn = time.Duration(hours * float64(time.Hour))
		}
	}
	return f
}
