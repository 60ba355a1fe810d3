// Command drain is the drain benchmark (`make bench-drain`): on a local
// control plane (test/framework) it drains a seed holding 1,000 shoots with
// graft-scheduler and graft-descheduler running in-process and the
// descheduler's limits raised, and measures shoots per second from the taint
// until every write the two components made for the move (evictions,
// bindings and Events) is acknowledged. All their requests go
// through a counting transport (package test/perf/writes), which gives their
// writes by verb and resource and how many were in flight.
//
// In the same run it measures the API server's ceiling for the same writes
// (those the API server accepted; refused ones, conflicts mostly, are graft's
// own cost): a plain loop, each writer making one shoot's writes in series, on shoots of
// its own, with as many writers as graft had writes in flight. The baseline
// runs half before and half after the measured drain: the first half makes
// the writes graft made in an unmeasured calibration drain of half as many
// shoots, the second what the measured drain wrote beyond that, so both
// sides make the same writes. The lines before the last give both sides' writes and writes
// in flight; the last reads `drain <a> shoots/s, baseline <b> shoots/s, ratio <a/b>`.
package main
