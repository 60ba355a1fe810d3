// Package scheduler is graft-scheduler: a leader-elected controller that binds
// pending shoots to seeds with the shared algorithm (pkg/algorithm).
//
// Informers for Shoots, Seeds, CloudProfiles and the region ConfigMaps (of
// regionConfigNamespace only, so that no tenant steers decisions) keep a
// schedulingCache current: an algorithm.Snapshot of seeds and per-seed usage,
// plus assumed bindings. Workers take shoot keys from a rate-limited workqueue;
// each decides and reserves the seed under the cache's lock (so a burst cannot
// overfill a seed), then writes spec.seedName outside the lock with the read
// resourceVersion as precondition. A successful bind counts at once (assumed)
// and is confirmed when the informer shows it; a failed bind is rolled back.
//
// The informers read graft's core.graft.dev, or with api core.gardener.cloud a
// Gardener garden's Seeds, Shoots and CloudProfiles, converted into graft's
// types as they enter the informers (coreAPI in api.go); there shoots are bound
// through shoots/binding.
//
// New and Run let tests (and other components' tests) run the scheduler in-process.
package scheduler
