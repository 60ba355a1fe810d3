package forecast

import (
	"math"
	"time"
)

// Input is what a pool's forecast is made of.
type Input struct {
	// Window is how far back the arrival rate is measured.
	Window time.Duration
	// Free is the pool's allocatable shoots minus the shoots counted on its
	// seeds that take shoots now; Waiting the shoots that wait for capacity
	// alone (no other filter refuses every seed of the pool).
	Free, Waiting int
	// Arrived counts the new shoots that came to the pool (placed or
	// waiting) within the window; Departed the shoots that existed when the
	// window began and were deleted within it (Tally.Departed).
	Arrived, Departed int
}

// Forecast is a pool's outlook.
type Forecast struct {
	Free, Waiting int
	// PerHour is the net arrival rate over the window: arrivals less
	// departures, never below zero.
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
	if in.Window > 0 {
		f.PerHour = float64(max(0, in.Arrived-in.Departed)) / in.Window.Hours()
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
