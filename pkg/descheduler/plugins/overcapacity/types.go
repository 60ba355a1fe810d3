package overcapacity

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

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
	// MaxDeferral bounds how long a move waits for the shoot's maintenance
	// window, counted from the pass that first asked for it: after it the
	// move happens as if its deadline had passed. A window opens once a day,
	// so a day lets every shoot move in its own window unless its tenant
	// moves the window ahead before each opening. Default 24h; at least 1h.
	MaxDeferral *metav1.Duration `json:"maxDeferral,omitempty"`
}
