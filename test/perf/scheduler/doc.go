// Command scheduler is graft-scheduler's benchmark: shoots/second against the
// API server's ceiling for the same writes. docs/benchmarks.md gives the method.
//
//	go run ./test/perf/scheduler                          # N=100, M=5000
package main
