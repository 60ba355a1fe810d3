// Command backlog is the backlog benchmark (`make bench-backlog`): what a
// backlog of shoots no seed fits costs graft-scheduler and the API server
// while schedulable shoots come and go. On a real kube-apiserver with 2,000
// seeds it runs graft-scheduler and graft-descheduler as their binaries
// under their charts' identities, churns schedulable shoots at a fixed rate
// with an empty backlog, then again with 1,000 waiting shoots (a full
// region, a region whose seeds are all tainted, a provider without seeds),
// and prints per churn event the scheduler's failed decisions, status writes
// and Event writes (from the audit log), its CPU time, and the churn's
// throughput and binding latency. -before runs the same on another build's
// binaries first. docs/benchmarks.md gives the method and the targets.
//
//	go run ./test/perf/backlog
//	go run ./test/perf/backlog -seeds 200 -backlog 100 -duration 30s   # a quick run
package main
