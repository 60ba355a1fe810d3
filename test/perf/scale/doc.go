// Command scale is the landscape-scale benchmark (`make bench-scale`): each
// daemon's readiness, pass or write cost and memory per shoot on N seeds and
// M shoots. docs/benchmarks.md gives the method and the targets.
//
//	go run ./test/perf/scale                               # N=2000, M=100000
//	go run ./test/perf/scale -seeds 200 -shoots 10000      # a quick run
package main
