// Package capacity is graft-capacity-annotator: it keeps every seed's
// status.capacity, status.allocatable and status.usage current and, when the
// configuration asks for it, turns seed health into not-ready taints the way
// Kubernetes' node lifecycle controller does for nodes. Each concern has its
// own subpackage:
//
//   - usage: counts shoots per seed from shoot events, O(1) per event, with
//     the algorithm's rule (algorithm.SeedNamesCountedFor);
//   - seedcapacity: decides a seed's capacity and allocatable from the
//     configuration, its overrides and the seed's annotations (pure);
//   - healthtaints: decides a seed's not-ready taints from its health (pure);
//   - metrics: the Prometheus metrics of the annotator;
//   - controller: informers, the coalescing work queue and the writes
//     (status merge patches, taint patches, Events);
//   - annotator: runs the controller as a component (clients, metrics
//     registry, Event recorder, leader election, health and metrics server).
package capacity
