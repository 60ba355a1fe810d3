// Command drain is the drain benchmark (`make bench-drain`): on a local
// control plane (test/framework) it drains a seed holding 1,000 shoots with
// graft-scheduler and graft-descheduler running in-process and the
// descheduler's limits raised, and measures shoots per second until every
// shoot is bound elsewhere. In the same run it measures the baseline for the
// same work: a plain loop making exactly the writes one move needs (eviction
// update, status update, binding patch and the three Events) at the same
// concurrency. It counts the components' writes per moved shoot and prints,
// last, `drain <a> shoots/s, baseline <b> shoots/s, ratio <a/b>`.
package main
