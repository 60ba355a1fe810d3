// Package forecast owns the arithmetic of a seed pool's capacity forecast
// (GEP-13's "add seeds before they run short"): the free slots now, the
// shoots waiting for capacity alone, the arrival rate of new shoots over a
// window, and when the pool is full at that rate. It is pure: the caller
// feeds it the pool's facts and the arrivals it saw.
package forecast
