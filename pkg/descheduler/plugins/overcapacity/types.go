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
	// PurposeOrder is the order in which purposes are evicted, lowest value
	// first. Shoots without purpose count as evaluation (Gardener's default);
	// purposes not listed go last. Default evaluation, testing, development,
	// production, infrastructure.
	PurposeOrder []v1alpha1.ShootPurpose `json:"purposeOrder,omitempty"`
}
