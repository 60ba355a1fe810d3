// Package capacity is graft-capacity-annotator: it keeps every seed's
// status.capacity, status.allocatable and status.usage current and, when the
// configuration asks for it, turns seed health into not-ready taints.
// docs/daemons.md describes the controller, its writes and its metrics.
package capacity
