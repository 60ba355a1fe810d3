// Command scheduler is graft-scheduler's benchmark. Against a local control
// plane (test/framework) it creates N seeds and M pending shoots, runs the
// scheduler in-process and measures shoots/second from the scheduler's start
// until every write it made for them (bindings and Scheduled Events) is
// acknowledged, and the p50/p99 time from each shoot's creation to its
// binding. All the scheduler's requests go through a counting transport
// (package test/perf/writes), which gives its writes by verb and resource and
// how many were in flight.
//
// In the same run it measures the API server's ceiling for the same writes
// (those the API server accepted; refused ones are the scheduler's own cost): a
// plain loop, each writer making one shoot's writes in series, on shoots of
// its own, with as many writers as the scheduler had writes in flight. The
// baseline runs half before and half after the measured run: the first half
// makes the writes the scheduler made in an unmeasured calibration run on
// M/2 shoots, the second what the measured run wrote beyond that, so both
// sides make the same writes.
//
//	go run ./test/perf/scheduler                          # N=100, M=5000
//	go run ./test/perf/scheduler -seeds 1000 -shoots 20000
//
// The lines before the last give both sides' writes and writes in flight; the
// last reads "scheduler <a> shoots/s, baseline <b> shoots/s, ratio <a/b>".
package main
