// Package descheduler owns graft-descheduler's control loop: it keeps an
// informer-fed view of seeds and shoots (the shared algorithm's Snapshot,
// the evicted shoots still waiting for a seed, and when this process first saw
// each NoExecute taint), runs the configured plugins over seeds, applies the safety
// rules (requireFit through algorithm.FitsElsewhere, which moves a shoot only
// where it may stay without a limit; per-pass budgets, a token bucket,
// maxPendingEvicted, dry-run; no second eviction from one seed for the same
// plugin and taint within repeatEvictionWindow, counted in the shoot's
// graft.dev/evictions) and writes evictions.
//
// A pass (pass.go) orchestrates the plugins over the seeds of its view and
// asks requireFit; every limit on evictions and their writes (the budgets,
// maxPendingEvicted, the repeat guard, dry-run, the token bucket, the seeds
// held back, the EvictionSkipped Events and the eviction write) is the
// evictor's (evictor.go), as the sigs descheduler keeps them in its
// evictions package. The scheduling configuration requireFit asks with is
// graft-scheduler's, read from its Lease at start (schedulingconfig.go).
//
// An eviction is one merge patch of the shoot, preconditioned on the
// resourceVersion that was read (a concurrent change wins: the eviction is
// dropped and the seed looked at again), clearing spec.seedName and adding
// graft.dev/descheduled-from, graft.dev/descheduled-reason and the eviction
// to graft.dev/evictions, and an Event
// Descheduled on the shoot: two writes. It writes no status: the annotations say why and from where, and a
// lastOperation would cost a second write on the status subresource that
// graft-scheduler's binding races, and a third to clear it. Each seed gets
// one Descheduled Event per pass naming the shoots the pass evicted from it
// (announce.go). graft-scheduler then places the shoot.
//
// Tolerations with tolerationSeconds count from the taint's timeAdded, which
// is stored on the seed and so survives restarts, failovers and the one-shot
// mode. A NoExecute taint without it is stamped by the first pass that looks
// at the seed (one merge patch of spec.taints, preconditioned on the seed's
// resourceVersion) with the time this process first saw the taint; until the
// stamp lands, and in dry-run mode, that in-memory sighting counts instead.
//
// A pass costs in proportion to the seeds that need action and their shoots,
// not to the garden: the informer handlers keep, per seed, its shoots, its
// usage and how many of them are leaving (migrating away or being deleted),
// and a pass first asks each plugin (framework.SeedFilter) whether it may act
// on a seed from those facts alone (a NoExecute taint it acts on, usage over
// allocatable); it copies the shoots of those seeds only, and forks the
// snapshot (algorithm.Snapshot.Fork) for its hypothetical evictions only
// when there is a seed to act on.
//
// Passes are event driven: a seed is looked at when its taints or allocatable
// shoots change, every interval (all seeds, and the per-pass budgets start
// over), when a limited toleration runs out (a delayed requeue, not polling),
// and, for seeds held back by maxPendingEvicted or by requireFit, when an
// evicted shoot is placed or the seeds change.
package descheduler
