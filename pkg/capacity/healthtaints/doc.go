// Package healthtaints decides a seed's not-ready taints from its health, as
// Kubernetes' node lifecycle controller does for nodes: a seed whose
// GardenletReady condition is not True, or that has no status.lastOperation,
// gets seed.gardener.cloud/not-ready:NoSchedule at once and, once it has been
// not ready for the eviction delay, also seed.gardener.cloud/not-ready:NoExecute,
// with timeAdded set to the moment it is added.
// A ready seed loses both. Other taints, including not-ready taints of other
// effects, are never touched. The decision is a pure function of the seed and
// the times the caller passes in.
package healthtaints
