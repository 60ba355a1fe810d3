// Command graft-capacity-annotator keeps every seed's status.capacity,
// status.allocatable and status.usage current and, when configured, taints
// seeds that are not ready; see package pkg/capacity.
package main
