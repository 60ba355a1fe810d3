package overcapacity

import "github.com/graft-dev/graft/apis/core/v1alpha1"

// Name is the plugin's configuration name.
const Name = "OverCapacity"

// Args are the plugin's arguments.
type Args struct {
	// Force evicts even when no other seed fits the shoot right now
	// (overriding requireFit). Shoots annotated graft.dev/evict: "false" stay
	// regardless.
	Force bool `json:"force,omitempty"`
	// PurposeOrder lists the purposes whose shoots may be evicted, lowest
	// value first. Shoots of a purpose not listed never move, even when the
	// seed then stays over its allocatable shoots. Shoots without purpose
	// count as evaluation (Gardener's default). Default evaluation, testing,
	// development, production, infrastructure (every purpose).
	PurposeOrder []v1alpha1.ShootPurpose `json:"purposeOrder,omitempty"`
}
