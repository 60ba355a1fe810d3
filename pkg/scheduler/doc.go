// Package scheduler is graft-scheduler: a leader-elected controller that binds
// pending shoots to seeds with the shared algorithm (pkg/algorithm).
//
// Its schedulingCache holds an algorithm.Snapshot fed by the garden layer's
// informers (pkg/garden, either API) plus the bindings it assumed. A worker
// decides and reserves a seed under the cache's lock, so that a burst cannot
// overfill a seed, and binds outside it, preconditioned on what it read; a
// failed bind is rolled back. New and Run let tests run it in-process.
package scheduler
