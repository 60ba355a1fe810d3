// Package descheduler owns graft-descheduler's control loop: its informer-fed
// view of seeds and shoots, the passes that run the plugins over seeds
// (pass.go), the gate that owns every rule on whether a move may start and the
// budgets it takes (gate.go), the evictor that writes admitted moves
// (evictor.go), and the taint stamps tolerationSeconds count from. The
// planner (planner.go) is the same descheduler over a copy of a landscape and
// a simulated clock: what graftctl shows as a plan is what these passes do.
// Drain (drain.go) is the same descheduler over one seed, run from graftctl
// where no descheduler does: one drain engine, whoever runs it.
// docs/daemons.md describes an eviction, its pacing and what a pass costs.
package descheduler
