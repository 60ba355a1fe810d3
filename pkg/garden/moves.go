package garden

import (
	"maps"
	"time"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"
)

// Migrates tells whether a move on the API goes to the destination it names
// and stays in flight until the destination's gardenlet has taken the
// control plane over (Gardener's), rather than only clearing the seed
// (graft's): Mover.Migrates without a client, for what plans moves.
func (a API) Migrates() bool { return a == Gardener }

// Written is the shoot as its Mover's Move writes it, off seed from to seed
// to at at, with the move's annotations: on graft's API without a seed, on
// Gardener's bound to to (placed there at at) and still hosted by from until
// the migration lands. The shoot is not changed.
func (a API) Written(shoot *corev1alpha1.Shoot, to string, annotations map[string]string, at time.Time) *corev1alpha1.Shoot {
	out := shoot.DeepCopy()
	if out.Annotations == nil {
		out.Annotations = map[string]string{}
	}
	maps.Copy(out.Annotations, annotations)
	if !a.Migrates() {
		out.Spec.SeedName = nil
		return out
	}
	if _, ok := annotations[corev1alpha1.AnnotationLiveMigrate]; !ok {
		out.Annotations[corev1alpha1.AnnotationLiveMigrate] = "false"
	}
	out.Annotations[corev1alpha1.AnnotationPlacedOn] = helper.FormatPlacement(to, at)
	out.Spec.SeedName = &to
	return out
}

// Landed is a written move once it has landed on seed to at at: bound
// there (on graft's API by the scheduler, recording the placement) and
// hosted there (status.seedName, as the destination's gardenlet reports it
// once its reconciliation succeeded).
func (a API) Landed(written *corev1alpha1.Shoot, to string, at time.Time) *corev1alpha1.Shoot {
	out := written.DeepCopy()
	if out.Spec.SeedName == nil || *out.Spec.SeedName != to {
		if out.Annotations == nil {
			out.Annotations = map[string]string{}
		}
		out.Annotations[corev1alpha1.AnnotationPlacedOn] = helper.FormatPlacement(to, at)
	}
	out.Spec.SeedName = &to
	out.Status.SeedName = &to
	out.Status.LastOperation = &corev1alpha1.LastOperation{Type: corev1alpha1.LastOperationTypeReconcile, State: corev1alpha1.LastOperationStateSucceeded}
	return out
}
