// Package seedcapacity decides a seed's capacity and allocatable: the
// configured defaults, changed by the first override whose seed selector
// matches, changed by the seed's own annotations (capacity.graft.dev/shoots,
// reserved.graft.dev/shoots). Allocatable is capacity minus reserved, never
// negative. A seed whose status.capacity is published by another field manager
// (its own agent, GEP-13) is left alone when the configuration says to respect
// it. The decision is a pure function of the configuration and the seed.
package seedcapacity
