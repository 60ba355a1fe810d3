// Package descheduler owns graft-descheduler's control loop: it keeps an
// informer-fed view of seeds and shoots (the shared algorithm's Snapshot,
// the evicted shoots still waiting for a seed, and when each NoExecute taint
// was first seen), runs the configured plugins over seeds, applies the safety
// rules (requireFit through algorithm.FitsElsewhere, per-pass budgets, a token
// bucket, maxPendingEvicted, dry-run) and writes evictions.
//
// An eviction is one Update of the shoot with the resourceVersion that was
// read (a concurrent change wins: the eviction is dropped and the seed looked
// at again) clearing spec.seedName and adding graft.dev/descheduled-from and
// graft.dev/descheduled-reason, then one status Update setting
// lastOperation to Pending with the reason, and an Event Descheduled on the
// shoot and on the seed: four writes. graft-scheduler then places the shoot.
//
// Passes are event driven: a seed is looked at when its taints or allocatable
// shoots change, every interval (all seeds, and the per-pass budgets start
// over), when a limited toleration runs out (a delayed requeue, not polling),
// and, for seeds held back by maxPendingEvicted or by requireFit, when an
// evicted shoot is placed or the seeds change.
package descheduler
