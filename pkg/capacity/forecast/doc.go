// Package forecast owns the capacity forecast of regions and seed pools
// (GEP-13's "add seeds before they run short"): which pools a seed is in,
// the free slots now, the shoots waiting for capacity alone (as the
// scheduling algorithm decides), the arrival rate of new shoots over a
// window, and when a pool is full at that rate. It is pure: Make takes the
// garden as graft-capacity-annotator's informers or graftctl's listing hold
// it, so that both give the same numbers.
package forecast
