// Command scheduler is graft-scheduler's benchmark. Against a local control
// plane (test/framework) it creates N seeds and M pending shoots, runs the
// scheduler in-process and measures shoots/second until all are bound and the
// p50/p99 time from each shoot's creation to its binding. In the same run it
// measures the API server's own ceiling for the same work: a plain loop with
// the same concurrency making exactly the writes a minimal scheduler must make
// per shoot (one spec.seedName merge patch and one Event), on M other shoots,
// half before and half after the scheduler's run.
//
//	go run ./test/perf/scheduler                          # N=100, M=5000
//	go run ./test/perf/scheduler -seeds 1000 -shoots 20000
//
// The last line reads "scheduler <a> shoots/s, baseline <b> shoots/s, ratio <a/b>".
package main
