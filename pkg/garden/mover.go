package garden

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"
	"github.com/graft-dev/graft/pkg/algorithm"
)

// Mover moves a bound shoot's control plane off its seed, as the API moves
// one: on graft's API by clearing spec.seedName, after which graft-scheduler
// places the shoot again; on Gardener's by a control-plane migration to a
// destination through shoots/binding, which Gardener's admission may refuse.
// It is what graft-descheduler and graftctl drain need to know of the
// difference (docs/daemons.md).
type Mover interface {
	// Moves is what the API's moves are.
	Moves
	// Move moves the shoot off seed from (to seed to, where the move
	// migrates; to is only where the shoot is expected to go otherwise),
	// preconditioned on the shoot's resourceVersion, under fieldManager,
	// setting annotations (nil: none) in the same write; with dryRun the API
	// server admits the move without storing it.
	Move(ctx context.Context, shoot *corev1alpha1.Shoot, from, to string, annotations map[string]string, fieldManager string, dryRun bool) (*corev1alpha1.Shoot, error)
	// MoveTested is Move preconditioned on what a decision to move reads of
	// the shoot (its UID, spec through the generation, deletion, status and
	// graft's annotations) rather than on its whole resourceVersion, for a
	// move that keeps losing to writes of what no decision reads (its
	// tenant's labels or other annotations). A changed field fails the
	// write as Invalid.
	MoveTested(ctx context.Context, shoot *corev1alpha1.Shoot, from, to string, annotations map[string]string, fieldManager string) (*corev1alpha1.Shoot, error)
	// Refusal is the API's refusal of a move from one seed to another, read
	// from its answer; nil for any other error, and always on graft's API,
	// whose moves admission does not refuse.
	Refusal(err error, from, to string) *algorithm.MigrationRefusal
	// Moved says what a written move did, for the shoot's Event.
	Moved(from, to, why string) string
	// Verb begins the Event of a seed the control planes of shoots were
	// moved off.
	Verb() string
}

// Mover clears the shoot's seed.
func (g graftClient) Mover() Mover { return graftMover{c: g} }

type graftMover struct {
	evictions
	c graftClient
}

func (m graftMover) Move(ctx context.Context, shoot *corev1alpha1.Shoot, _, _ string, annotations map[string]string, fieldManager string, dryRun bool) (*corev1alpha1.Shoot, error) {
	meta := map[string]any{"resourceVersion": shoot.ResourceVersion}
	if annotations != nil {
		// Only when set: null would delete every annotation.
		meta["annotations"] = annotations
	}
	patch, err := json.Marshal(map[string]any{"metadata": meta, "spec": map[string]any{"seedName": nil}})
	if err != nil {
		return nil, fmt.Errorf("encoding the move of shoot %s/%s: %w", shoot.Namespace, shoot.Name, err)
	}
	opts := metav1.PatchOptions{FieldManager: fieldManager}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	return m.c.PatchShoot(ctx, shoot.Namespace, shoot.Name, patch, opts)
}

// decisionAnnotations are the annotations a decision to move reads.
var decisionAnnotations = []string{
	corev1alpha1.AnnotationEvict, corev1alpha1.AnnotationEvictions, corev1alpha1.AnnotationDescheduledFrom,
	corev1alpha1.AnnotationDescheduledReason, corev1alpha1.AnnotationPlacedOn,
}

func (m graftMover) MoveTested(ctx context.Context, shoot *corev1alpha1.Shoot, _, _ string, annotations map[string]string, fieldManager string) (*corev1alpha1.Shoot, error) {
	ops := movedTests(shoot, statusFields{hibernated: "isHibernated", omitsEmpty: true}, decisionAnnotations, annotations)
	ops = append(ops, jsonPatchOp{"remove", "/spec/seedName", nil})
	patch, err := json.Marshal(ops)
	if err != nil {
		return nil, fmt.Errorf("encoding the move of shoot %s/%s: %w", shoot.Namespace, shoot.Name, err)
	}
	return m.c.c.CoreV1alpha1().Shoots(shoot.Namespace).Patch(ctx, shoot.Name, types.JSONPatchType, patch, metav1.PatchOptions{FieldManager: fieldManager})
}

// statusFields is how an API spells the status a move tests.
type statusFields struct {
	// hibernated is the name of the shoot's hibernation field.
	hibernated string
	// omitsEmpty: an empty status is omitted (graft's API); Gardener's
	// always carries status.hibernated.
	omitsEmpty bool
}

// movedTests are the JSON patch operations that test what a decision to
// move read of shoot (see Mover.MoveTested), then write annotations: the
// UID, the spec through the generation, the deletion, the seed, the status
// the decision reads and the annotations it reads (keys). A missing field
// tests equal to null; a field under a missing one cannot be tested, so the
// parent is.
func movedTests(shoot *corev1alpha1.Shoot, status statusFields, keys []string, annotations map[string]string) []jsonPatchOp {
	ops := []jsonPatchOp{
		{"test", "/metadata/uid", orNull(shoot.UID)},
		{"test", "/metadata/generation", orNull(shoot.Generation)},
		{"test", "/metadata/deletionTimestamp", shoot.DeletionTimestamp},
		{"test", "/spec/seedName", shoot.Spec.SeedName},
	}
	switch {
	case status.omitsEmpty && apiequality.Semantic.DeepEqual(shoot.Status, corev1alpha1.ShootStatus{}):
		ops = append(ops, jsonPatchOp{"test", "/status", nil})
	default:
		hibernated := any(shoot.Status.IsHibernated)
		if status.omitsEmpty {
			hibernated = orNull(shoot.Status.IsHibernated)
		}
		ops = append(ops,
			jsonPatchOp{"test", "/status/seedName", shoot.Status.SeedName},
			jsonPatchOp{"test", "/status/" + status.hibernated, hibernated})
		if op := shoot.Status.LastOperation; op != nil {
			ops = append(ops, jsonPatchOp{"test", "/status/lastOperation/state", op.State})
		} else {
			ops = append(ops, jsonPatchOp{"test", "/status/lastOperation", nil})
		}
	}
	if len(shoot.Annotations) == 0 {
		return append(ops, jsonPatchOp{"test", "/metadata/annotations", nil}, jsonPatchOp{"add", "/metadata/annotations", annotations})
	}
	for _, key := range keys {
		v, ok := shoot.Annotations[key]
		var want any
		if ok {
			want = v
		}
		ops = append(ops, jsonPatchOp{"test", "/metadata/annotations/" + escapePointer(key), want})
	}
	for _, key := range slices.Sorted(maps.Keys(annotations)) {
		ops = append(ops, jsonPatchOp{"add", "/metadata/annotations/" + escapePointer(key), annotations[key]})
	}
	return ops
}

// escapePointer escapes a map key for a JSON pointer (RFC 6901).
func escapePointer(key string) string {
	return strings.ReplaceAll(strings.ReplaceAll(key, "~", "~0"), "/", "~1")
}

func (graftMover) Refusal(error, string, string) *algorithm.MigrationRefusal { return nil }

func (graftMover) Moved(from, _, why string) string {
	return fmt.Sprintf("Evicted from seed %s: %s", from, why)
}

func (graftMover) Verb() string { return "Evicted" }

// Mover migrates the shoot's control plane.
func (g gardenerClient) Mover() Mover { return gardenerMover{c: g} }

type gardenerMover struct {
	migrations
	c gardenerClient
}

// Move binds the shoot to seed to, recording the placement on it
// (graft.dev/placed-on, now) with the annotations. Every migration graft
// makes says whether it is live (migration.gardener.cloud/live-migrate):
// "false" unless the annotations say otherwise, so that a value the tenant
// left never decides it (with the gate off, Gardener refuses a binding of
// a shoot asking to move live).
func (m gardenerMover) Move(ctx context.Context, shoot *corev1alpha1.Shoot, _, to string, annotations map[string]string, fieldManager string, dryRun bool) (*corev1alpha1.Shoot, error) {
	opts := metav1.PatchOptions{FieldManager: fieldManager}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	if _, ok := annotations[corev1alpha1.AnnotationLiveMigrate]; !ok {
		annotations = maps.Clone(annotations)
		if annotations == nil {
			annotations = map[string]string{}
		}
		annotations[corev1alpha1.AnnotationLiveMigrate] = "false"
	}
	return m.c.bind(ctx, shoot, to, time.Now(), annotations, opts)
}

// MoveTested on Gardener patches shoots/binding with a JSON patch (its
// REST storage gets and updates, so the API server patches it): the tests
// of movedTests, Gardener's status.hibernated among them, and the tenant's
// graft.dev/toleration-seconds, which on Gardener holds what graft's API
// keeps in the spec.
func (m gardenerMover) MoveTested(ctx context.Context, shoot *corev1alpha1.Shoot, _, to string, annotations map[string]string, fieldManager string) (*corev1alpha1.Shoot, error) {
	written := make(map[string]string, len(annotations)+2)
	maps.Copy(written, annotations)
	if _, ok := written[corev1alpha1.AnnotationLiveMigrate]; !ok {
		written[corev1alpha1.AnnotationLiveMigrate] = "false"
	}
	written[corev1alpha1.AnnotationPlacedOn] = helper.FormatPlacement(to, time.Now())
	keys := append(slices.Clone(decisionAnnotations), corev1alpha1.AnnotationTolerationSeconds)
	ops := movedTests(shoot, statusFields{hibernated: "hibernated"}, keys, written)
	ops = append(ops, jsonPatchOp{"replace", "/spec/seedName", to})
	patch, err := json.Marshal(ops)
	if err != nil {
		return nil, fmt.Errorf("encoding the migration of shoot %s/%s: %w", shoot.Namespace, shoot.Name, err)
	}
	return m.c.patchBinding(ctx, shoot.Namespace, shoot.Name, types.JSONPatchType, patch, metav1.PatchOptions{FieldManager: fieldManager})
}

func (gardenerMover) Refusal(err error, from, to string) *algorithm.MigrationRefusal {
	return RefusalOf(err, from, to)
}

func (gardenerMover) Moved(from, to, why string) string {
	return fmt.Sprintf("Migrating the control plane from seed %s to seed %s: %s", from, to, why)
}

func (gardenerMover) Verb() string { return "Migrating the control plane of" }
