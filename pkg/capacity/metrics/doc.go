// Package metrics holds graft-capacity-annotator's Prometheus metrics: the
// capacity, allocatable and usage of every seed per resource, and counters of
// reconciles and writes.
package metrics
