// Command scale is the landscape-scale benchmark (`make bench-scale`). On a
// local control plane (test/framework) it creates N seeds and M shoots
// (default 2,000 and 100,000) with the drain benchmark's landscape (package
// test/integration/descheduler/fixture): every seed ready with
// status.allocatable set (room for twice the mean shoots per seed, and at
// least for the drained seed's), M - P shoots bound when they are created (D
// of them on seed 0, the others round robin over the other seeds) and P
// pending shoots (default 2,000) in a namespace of their own.
//
// Each daemon then runs alone, as its real binary built from the tree, with
// the identity, RBAC and configuration its chart gives it
// (charts.RunAsChart: client QPS 100, leader election on; logging at
// verbosity 2), one after the
// other, first on the empty landscape (before the seeds and shoots exist) and
// then on the full one:
//
//   - graft-scheduler: ready (/readyz answers 200: informers synced) and
//     leading (its Lease taken after its start), then the time from its start
//     until a watch sees the last pending shoot bound;
//   - graft-descheduler (interval 5s, no per-pass budgets): the duration of
//     its first pass and the median of the next ones without taints, from
//     its pass-duration histogram (graft_descheduler_pass_duration_seconds:
//     each growth of the count between two scrapes 100 ms apart is a pass,
//     the growth of the sum its duration); then seed 0 is drained as
//     `graftctl drain` does it (the real graftctl's cordon, then its
//     NoExecute taint), and the passes that evict its D shoots (default 500)
//     are timed the same way;
//   - graft-capacity-annotator (its capacity set to the seeds' allocatable):
//     the time until every seed's status shows that capacity and the shoots
//     on it, and its writes per seed until the end of its steady window, from
//     the API server's audit log (every write but a Lease's, with the user
//     who made it), beside its own graft_capacity_annotator_writes_total.
//
// Memory is read from /proc/PID/status every 200 ms: a daemon's steady RSS is
// the median VmRSS over a window once it is idle (the scheduler and the
// annotator: the 15 s after their work was seen done; the descheduler: from
// the end of its first pass to the end of its third after, before the
// drain), its peak its VmHWM when it is stopped. The kube-apiserver of the
// same run is sampled throughout as the reference: its steady RSS is the
// median over the daemons' steady windows. RSS per shoot is printed twice,
// steady RSS / M and (steady RSS - the empty landscape's) / M; the last line
// gives the second:
//
//	scale <M> shoots: scheduler <x> KiB/shoot, descheduler <y> KiB/shoot, annotator <z> KiB/shoot, apiserver <w> KiB/shoot
//
// Every figure is printed beside its target (ready within 10 s, judged on
// the later of /readyz and leading; steady RSS under 300 MiB and at most a
// tenth of the API server's; a pass without taints under 5 ms; at most 1.01
// writes per seed). On a shared two-core machine the times are noisy:
// compare within one run.
//
//	go run ./test/perf/scale                               # N=2000, M=100000
//	go run ./test/perf/scale -seeds 200 -shoots 10000      # a quick run
package main
