// Package controller is the capacity annotator's control loop, in the shape of
// Kubernetes' sample-controller: shared informers for Seeds and Shoots, a work
// queue of seed names, processNextWorkItem and syncHandler.
//
// Shoot events update per-seed usage counts at once (O(1) each, package usage)
// and enqueue the seeds whose count changed. Status writes are coalesced: a
// seed written less than syncPeriod ago is put back with AddAfter for the rest
// of the period, so a burst of bindings costs one status write per seed and
// period, never one per binding. A status write is a JSON merge patch of the
// status subresource holding only the annotator's fields (capacity,
// allocatable, usage), made with the field manager graft-capacity-annotator;
// conditions and lastOperation are never sent. Not-ready taints are written as
// a merge patch of spec.taints carrying the resourceVersion the decision was
// made on, retried from a fresh read on conflict.
package controller
