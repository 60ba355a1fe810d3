// Command chaos runs the real graft daemons, two replicas each as separate
// processes, against a local control plane (test/framework: etcd and
// kube-apiserver on loopback) and subjects them to a seeded, bounded,
// randomized series of faults: shoot churn, taints of every effect, capacity
// changes, leader kills, leader pauses past the lease and one API server
// restart. Watches feed invariant checks the whole time; every violation is
// recorded with its time and details, and any makes the run exit non-zero.
//
//	go run ./test/chaos -seed 42 -duration 90s   # or: make chaos SEED=42 DURATION=90s
//
// The seed is printed first; the same seed repeats the same choices (the
// timing of the components, and so what they do, still varies).
//
// With -api core.gardener.cloud (make chaos API=core.gardener.cloud) the
// garden is gardener-apiserver's: the daemons run in their Gardener mode, a
// stand-in for gardenlet finishes each control-plane migration a few seconds
// after its binding, and the checker also judges the migrations in flight
// against graft-descheduler's limits and that no shoot is migrated off a
// seed twice for one cause (gardener.go). The capacity annotator forecasts
// and scales a ManagedSeedSet there, and every scale-out must name demand
// the garden had, net of the shoots tenants recreate (pool.go).
package main
