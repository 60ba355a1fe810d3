package garden

import (
	"maps"
	"strconv"
	"time"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"
	"github.com/graft-dev/graft/pkg/algorithm"
)

// Moves is what a move of a control plane is on one API, apart from the
// write itself (Mover): what deciding, counting and planning moves read of
// it without a client. graft's API moves by clearing the seed, and the
// scheduler places the shoot again; Gardener's migrates the control plane to
// the destination the move names. The descheduler, its planner and graftctl
// ask these questions instead of which API they talk to.
type Moves interface {
	// Migrates is set when a move goes to the destination it names and stays
	// in flight until the destination's gardenlet has taken the control plane
	// over (Gardener); otherwise a move only clears the seed.
	Migrates() bool
	// Bound is the seed a written move to seed to binds the shoot to: to
	// where the move migrates, "" where the scheduler chooses again.
	Bound(to string) string
	// InFlight tells whether the shoot's move is in flight as the API
	// shows it, and the destination it is bound to ("" while it waits for
	// the scheduler): on Gardener a migration not finished, whoever started
	// it; on graft's API a shoot graft-descheduler evicted (its own record
	// says so) that waits for a seed.
	InFlight(shoot *corev1alpha1.Shoot) (to string, ok bool)
	// Failed tells whether the shoot's move in flight failed for good (a
	// Migrate or Restore whose lastOperation failed: Gardener does not retry
	// it).
	Failed(shoot *corev1alpha1.Shoot) bool
	// Leaves is the seed the shoot's move in flight leaves, when the API
	// shows it (status.seedName on Gardener); false where only the record of
	// the eviction knows it.
	Leaves(shoot *corev1alpha1.Shoot) (seed string, known bool)
	// Annotations are those a move from seed from writes: the descheduler's
	// record of it and, where moves migrate, whether it is asked to be live.
	Annotations(from, reason, evictions string, live bool) map[string]string
	// Written is the shoot as the Mover's Move writes it, off seed from to
	// seed to at at, with the move's annotations: on graft's API without a
	// seed, on Gardener's bound to to (placed there at at) and still hosted
	// by from until the migration lands. The shoot is not changed.
	Written(shoot *corev1alpha1.Shoot, to string, annotations map[string]string, at time.Time) *corev1alpha1.Shoot
}

// Moves is the API's kind of move.
func (a API) Moves() Moves {
	if a == Gardener {
		return migrations{}
	}
	return evictions{}
}

// Migrates: see Moves.
func (a API) Migrates() bool { return a.Moves().Migrates() }

// evictions are graft's moves: the seed is cleared and graft-scheduler
// places the shoot again.
type evictions struct{}

func (evictions) Migrates() bool      { return false }
func (evictions) Bound(string) string { return "" }

func (evictions) InFlight(s *corev1alpha1.Shoot) (string, bool) {
	return "", algorithm.Evicted(s) && algorithm.EvictionRecorded(s)
}

func (evictions) Failed(*corev1alpha1.Shoot) bool { return false }

func (evictions) Leaves(*corev1alpha1.Shoot) (string, bool) { return "", false }

func (evictions) Annotations(from, reason, records string, _ bool) map[string]string {
	return recordAnnotations(from, reason, records)
}

func (evictions) Written(shoot *corev1alpha1.Shoot, _ string, annotations map[string]string, _ time.Time) *corev1alpha1.Shoot {
	out := annotated(shoot, annotations)
	out.Spec.SeedName = nil
	return out
}

// migrations are Gardener's moves: control-plane migrations to a named
// destination.
type migrations struct{}

func (migrations) Migrates() bool         { return true }
func (migrations) Bound(to string) string { return to }

func (migrations) InFlight(s *corev1alpha1.Shoot) (string, bool) {
	if !algorithm.Migrating(s) {
		return "", false
	}
	return *s.Spec.SeedName, true
}

func (migrations) Failed(s *corev1alpha1.Shoot) bool {
	op := s.Status.LastOperation
	return op != nil && op.State == corev1alpha1.LastOperationStateFailed &&
		(op.Type == corev1alpha1.LastOperationTypeMigrate || op.Type == corev1alpha1.LastOperationTypeRestore)
}

func (migrations) Leaves(s *corev1alpha1.Shoot) (string, bool) {
	if s.Status.SeedName == nil {
		return "", true
	}
	return *s.Status.SeedName, true
}

func (migrations) Annotations(from, reason, records string, live bool) map[string]string {
	out := recordAnnotations(from, reason, records)
	out[corev1alpha1.AnnotationLiveMigrate] = strconv.FormatBool(live)
	return out
}

func (migrations) Written(shoot *corev1alpha1.Shoot, to string, annotations map[string]string, at time.Time) *corev1alpha1.Shoot {
	out := annotated(shoot, annotations)
	if _, ok := annotations[corev1alpha1.AnnotationLiveMigrate]; !ok {
		out.Annotations[corev1alpha1.AnnotationLiveMigrate] = "false"
	}
	out.Annotations[corev1alpha1.AnnotationPlacedOn] = helper.FormatPlacement(to, at)
	out.Spec.SeedName = &to
	return out
}

func recordAnnotations(from, reason, records string) map[string]string {
	return map[string]string{
		corev1alpha1.AnnotationDescheduledFrom:   from,
		corev1alpha1.AnnotationDescheduledReason: reason,
		corev1alpha1.AnnotationEvictions:         records,
	}
}

func annotated(shoot *corev1alpha1.Shoot, annotations map[string]string) *corev1alpha1.Shoot {
	out := shoot.DeepCopy()
	if out.Annotations == nil {
		out.Annotations = map[string]string{}
	}
	maps.Copy(out.Annotations, annotations)
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

// APIOf is the API whose moves a landscape's are (algorithm.Landscape's
// Migration): Gardener's where moves migrate, graft's otherwise.
func APIOf(l interface{ Migration() bool }) API {
	if l.Migration() {
		return Gardener
	}
	return Graft
}
