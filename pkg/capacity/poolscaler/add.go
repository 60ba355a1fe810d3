package poolscaler

import (
	"time"

	"k8s.io/client-go/tools/record"

	"github.com/graft-dev/graft/pkg/garden"
)

// Options are what a Reconciler is built from.
type Options struct {
	// Sets reads and scales ManagedSeedSets; Client reads and patches seeds
	// (the scale-in cordon).
	Sets   *garden.ManagedSeedSets
	Client garden.Client
	// FieldManager names the writes.
	FieldManager string
	// Recorder receives the Events on the sets.
	Recorder record.EventRecorder
	Metrics  Metrics
	// Horizon is the forecast's horizon.
	Horizon time.Duration
}

// New returns the Reconciler of a garden's pools, writing through the
// garden's clients.
func New(o Options) *Reconciler {
	return newReconciler(gardenActuator{sets: o.Sets, client: o.Client, fieldManager: o.FieldManager}, o.Recorder, o.Metrics, o.Horizon)
}

func newReconciler(a Actuator, recorder record.EventRecorder, m Metrics, horizon time.Duration) *Reconciler {
	return &Reconciler{actuator: a, recorder: recorder, metrics: m, horizon: horizon,
		lowSince: map[string]time.Time{}, atMax: map[string]bool{}, cordonedAt: map[string]time.Time{}, reported: map[string]string{}}
}
