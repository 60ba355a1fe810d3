// Package algorithm owns graft's scheduling decision: which seed a shoot's
// control plane should run on, why every other seed was rejected, and the
// questions the descheduler, the capacity annotator and graftctl ask about the
// same rules. It is pure: no clients, no informers, no clock; callers pass in
// everything, including times.
//
// # Snapshot
//
// A Snapshot holds the seeds and the per-seed usage counts. Callers keep it up
// to date from their informers with AddSeed/UpdateSeed/RemoveSeed and
// AddShoot/UpdateShoot/RemoveShoot; every update is O(1). Shoots are tracked by
// namespace/name, so adding a shoot twice replaces it instead of counting it
// twice, and removing a shoot undoes exactly what was counted for it. A shoot
// counts on the seeds returned by SeedNamesCountedFor: spec.seedName, plus
// status.seedName while a control plane migration is in flight. The counting
// itself is ShootCounter, which the capacity annotator and graftctl use too,
// so all agree on usage.
//
// A Snapshot is not safe for concurrent use: callers serialise access (the
// scheduler holds a mutex around updates and decisions). Schedule, Explain and
// FitsElsewhere only read it, so decisions may run concurrently with each
// other (under a read lock), never with updates. Seeds are kept by pointer and
// must not be mutated afterwards (informer objects never are); of a shoot only
// its key and counted seeds are kept. Clone costs O(seeds): the per-shoot
// records are copied on the next shoot update of either snapshot. Fork, for
// hypothetical changes made while the original goes on changing, copies the
// per-seed counts (O(seeds)), shares the seeds until either side changes one,
// and copies no per-shoot records ever; it takes a shoot it has not changed
// to be counted where the object handed to it says, so it is changed with
// UpdateShoot(old, new). Clone and Fork count as updates for the locking
// rules.
//
// # Decision
//
// Schedule(shoot, snapshot, inputs) runs, in this order:
//
//  1. Usable: no deletionTimestamp, visible (absent settings mean visible),
//     status.lastOperation set, GardenletReady True, BackupBucketsReady True
//     when spec.backup is set.
//  2. Seed selectors of the cloud profile, then of the shoot.
//  3. Provider: the seed's provider type equals the shoot's, unless the cloud
//     profile's or the shoot's seedSelector.providerTypes widens it ("*" = all);
//     both lists apply when set.
//  4. HA: failure tolerance type zone needs a seed with at least 3 zones.
//  5. Networks: every shoot network (nodes, pods, services of the spec, and
//     those status.networking reports, since a shoot that already runs, such
//     as an evicted one, keeps them on its next seed; pods and services
//     neither gives fall back to the seed's shootDefaults of the shoot's IP
//     families) must be disjoint from every seed network (nodes, pods,
//     services), IPv4 and IPv6;
//     a field may hold a comma-separated dual-stack list. A seed whose own
//     CIDRs (or needed defaults) do not parse is rejected; a shoot whose CIDRs
//     do not parse gets an input error. Networks a shoot leaves empty and the
//     seed does not default are not checked.
//  6. Taints: an untolerated NoSchedule or NoExecute taint (a taint without
//     effect is NoSchedule) rejects the seed. A shoot the descheduler evicted
//     (annotated graft.dev/descheduled-from) is also kept off the seed it left
//     while a NoExecute taint there limits its stay (tolerationSeconds). A
//     NoExecute taint the shoot tolerates for less than MinimumStay rejects
//     the seed too (TolerationRunsOut): the toleration counts from the
//     placement, so the shoot would have to leave as soon as it arrived.
//  7. Capacity: a seed with status.allocatable.shoots set and usage >= it is
//     rejected. The shoot's own count is not held against the seeds it is
//     already counted on.
//  8. Strategy: purpose testing keeps seeds of the shoot's provider type in any
//     region; SameRegion keeps seeds of the shoot's provider type and region;
//     MinimalDistance measures distances from the region ConfigMap, or, when
//     no candidate's region is listed there (or the shoot region's entry is
//     empty), with the Levenshtein fallback: twice the edit distance of the
//     region names with their orientation (north, south, east, west, central)
//     replaced by ":", plus 1 when only one of them has an orientation, 2
//     when they differ, and 2 for another provider type (LevenshteinDistance).
//     As in the reference scheduler, a configured distance above 2^31-1 counts
//     as unlisted and, without weights, a fallback distance above 1000
//     (MaxFallbackDistance) is never a candidate.
//     FitsElsewhere then rejects every seed whose NoExecute taints the shoot
//     tolerates only for a limited time (LimitedToleration): a move must
//     leave the shoot where it may stay longer than where it is.
//     For an evicted shoot, Schedule drops such seeds if any seed where it
//     may stay is left (LimitedToleration), so that it moves once, not back and forth
//     between seeds that are both being drained. Then seeds with untolerated
//     PreferNoSchedule taints are dropped if any seed without such taints is
//     left; then MinimalDistance keeps the seeds at the smallest distance.
//  9. The least used candidate wins; ties go to the name that sorts first.
//
// With Config.ScoreWeights set, steps 8 and 9 become a weighted score (GEP-13):
// MinimalDistance, LeastAllocated and PreferNoSchedule plugins, each 0..100,
// highest total wins, ties as in step 9. Without weights the decision is the
// reference scheduler's.
//
// A failure is a *ScheduleError. Its Error() starts with the reference
// scheduler's message for the step that removed the last candidate, counting
// the seeds that entered that step ("0/5 seed cluster candidate(s) are
// eligible for scheduling", "none of the 3 seeds is valid for scheduling (not
// deleting, visible and ready)", ...), followed by every seed, sorted by name,
// with the first reason it was rejected: "{seed-a => shoot does not tolerate
// the seed's taints (key:NoSchedule), ...}". Short() is a one-line summary for
// Events and lastOperation ("0/5 seeds fit: no capacity (3), ..."), also
// available as ShortReason(err) for any error; IsNoCapacity(err) is true when
// the shoot would have been placed had the full seeds had room. Other errors
// (no cloud profile, an invalid selector or shoot CIDR, a malformed region
// ConfigMap entry the shoot needs, an invalid Config) are plain errors.
//
// Explain returns the same decision seed by seed: the first filter that
// rejected each seed with its message, or the distance and score of the
// survivors; ExplainElsewhere does so for FitsElsewhere. FormatExplanation
// renders the long form used by `graftctl simulate --explain`;
// Explanation.Short the short one.
//
// # Region configuration
//
// SelectRegionConfigMap picks the region ConfigMap of a cloud profile among
// several of one namespace (callers read region ConfigMaps from one namespace
// only, garden by default, so that no tenant can steer decisions);
// ParseRegionConfig (or ParseRegionConfigNamed) reads its data once, accepting
// what the reference scheduler accepts: integer distances, negative ones
// included, null as 0, an empty entry as none. Malformed entries only fail the
// shoots whose region needs them. Pass the parsed form in Inputs.RegionConfig
// to keep parsing off the hot path, or the raw ConfigMap in
// Inputs.RegionConfigMap.
//
// # Taints and the descheduler
//
// ToleratesTaint, TaintTolerated and UntoleratedTaints are the
// matching rules, exported for graftctl. Which seeds are usable at all and how
// taints are written are API rules: see the core v1alpha1 helper package. ShootTolerations is what every
// decision matches against: a toleration of seed.gardener.cloud/protected
// counts only in the garden namespace, where it is implied. CheckNoExecute reports the
// untolerated NoExecute taints a shoot has on its seed and, for tolerated ones
// with tolerationSeconds, the time until which it may stay. FitsElsewhere
// answers whether a shoot would be placed on some seed other than its current
// one, with the same filters, and where: the seed the scheduler would choose
// once the shoot is evicted from its current one.
package algorithm
