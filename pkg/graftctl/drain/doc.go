// Package drain owns taking a seed out of service, as kubectl's drain package
// owns cordon, uncordon and drain for nodes: `graftctl cordon` and `uncordon`
// (the seed.gardener.cloud/unschedulable:NoSchedule taint, and lifting it
// together with a drain's NoExecute variant) and `graftctl drain`: cordoning a
// seed, marking it for eviction with seed.gardener.cloud/unschedulable:NoExecute
// (which graft-descheduler acts on), following its shoots until they run
// elsewhere, checking that the descheduler is alive, and, with --dry-run,
// telling where the shared scheduling algorithm would place each shoot now.
//
// On a Gardener garden, where taints evict nothing and spec.seedName cannot
// be cleared, `graftctl drain --migrate` drains by control-plane migration
// (migrate.go): it cordons the seed and moves each shoot's spec.seedName to
// the algorithm's choice through shoots/binding, rate limited, explaining
// Gardener's refusals per shoot; the algorithm chooses only seeds Gardener's
// migration rules accept (algorithm.CheckMigration).
package drain
