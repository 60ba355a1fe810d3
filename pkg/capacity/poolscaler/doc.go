// Package poolscaler owns scaling a pool's ManagedSeedSet from the
// forecast (Gardener's API only): which step a pool takes (decide.go, pure),
// the reconcile that reads the set and its seeds, decides once per forecast
// and reports it (reconciler.go), the writes that carry a step out
// (actuator.go: spec.replicas, the scale-in cordon), the loop that runs
// the reconcile on its own goroutine on the newest forecast (loop.go), and
// the wiring (add.go). graft-capacity-annotator's forecast loop hands it
// each forecast. docs/operations.md ("How the set is scaled") says what an
// operator sees.
package poolscaler
