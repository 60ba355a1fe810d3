// Package capacity is graft-capacity-annotator: it keeps every seed's
// status.capacity, status.allocatable and status.usage current and, when the
// configuration asks for it, turns seed health into not-ready taints the way
// Kubernetes' node lifecycle controller does for nodes.
//
// New builds an Annotator from its configuration and clients (informers,
// metrics, Event recorder and the controller) and Run runs the controller
// under the shared component runner (health and metrics endpoints, leader
// election, fenced writes).
//
// The controller has the shape of Kubernetes' sample-controller: shared
// informers for Seeds and Shoots, a work queue of seed names, the shared
// worker loop (component.RunWorkers, sample-controller's runWorker and
// processNextWorkItem) and syncHandler. Shoot events update per-seed usage
// counts at once (usageCounter, a lock around algorithm.ShootCounter, the
// counter the scheduler's snapshot uses, so that both count by one rule,
// algorithm.SeedNamesCountedFor: O(1) per event, and replaying an event never
// counts a shoot twice) and enqueue the seeds whose count changed. Status
// writes are coalesced: a seed written less than syncPeriod ago is put back
// with AddAfter for the rest of the period, so a burst of bindings costs one
// status write per seed and period, never one per binding. A status write is a
// JSON merge patch of the status subresource holding only the annotator's
// fields (capacity, allocatable, usage), made with the field manager
// graft-capacity-annotator; conditions and lastOperation are never sent.
// Not-ready taints are written as a merge patch of spec.taints carrying the
// resourceVersion the decision was made on, retried from a fresh read on
// conflict.
//
// Each seed is decided on the newer of its cached copy and the seed the API
// server returned for the annotator's last write to it (resourceVersions
// compared with apimachinery's resourceversion package), and the status on
// the seed the taint write returned: a sync that runs before the informer
// shows a write neither writes the same status again nor binds a taint patch
// to an outdated version. The watch event of an own write (starting from the
// version the write applied to, bringing nothing else) queues no sync, so a
// landscape without status converges with one write and one sync per seed.
//
// Two decisions are pure functions the controller calls:
//
//   - Rules decide a seed's capacity and allocatable: the configured defaults,
//     changed by the first override whose seed selector matches, changed by
//     the seed's own annotations (capacity.graft.dev/shoots,
//     reserved.graft.dev/shoots). Allocatable is capacity minus reserved,
//     never negative. A seed whose status.capacity is published by another
//     field manager (its own agent, GEP-13) is left alone when the
//     configuration says to respect it.
//   - decideTaints decides a seed's not-ready taints from its health: a seed
//     whose GardenletReady condition is not True, or that has no
//     status.lastOperation, gets seed.gardener.cloud/not-ready:NoSchedule at
//     once and, once it has been not ready for the eviction delay, also
//     seed.gardener.cloud/not-ready:NoExecute, with timeAdded set to the
//     moment it is added. A ready seed loses both. Other taints, including
//     not-ready taints of other effects, are never touched.
//
// The metrics (graft_seed_capacity, graft_seed_allocatable, graft_seed_usage
// per seed and resource, and counters of reconciles and writes) are
// component-base metrics in the process's legacy registry, or in a test's
// own registry.
package capacity
