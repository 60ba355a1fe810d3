// Package descheduler owns graft-descheduler's control loop: its informer-fed
// view of seeds and shoots, the passes that run the plugins over seeds
// (pass.go), the evictor that owns every limit on evictions and their writes
// (evictor.go), and the taint stamps tolerationSeconds count from.
// docs/daemons.md describes an eviction, its pacing and what a pass costs.
package descheduler
