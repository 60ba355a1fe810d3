package garden

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"
	"github.com/graft-dev/graft/pkg/coretest"
)

var errConflict = errors.New("conflict: resourceVersion changed")

// applyBinding sends the binding attempts to current as the API server would
// apply them: a JSON patch with the JSON patch library the API server uses
// (a failed test moves on to the next attempt), a merge patch on the
// resourceVersion it names.
func applyBinding(t *testing.T, attempts []binding, current *corev1alpha1.Shoot) (*corev1alpha1.Shoot, error) {
	t.Helper()
	doc := serverJSON(t, current)
	for _, b := range attempts {
		var out []byte
		switch b.patchType {
		case types.JSONPatchType:
			p, err := jsonpatch.DecodePatch(b.patch)
			if err != nil {
				t.Fatalf("binding patch %s: %v", b.patch, err)
			}
			if out, err = p.Apply(doc); err != nil {
				continue
			}
		case types.MergePatchType:
			var versioned struct {
				Metadata struct {
					ResourceVersion string `json:"resourceVersion"`
				} `json:"metadata"`
			}
			if err := json.Unmarshal(b.patch, &versioned); err != nil {
				t.Fatal(err)
			}
			if versioned.Metadata.ResourceVersion != current.ResourceVersion {
				return nil, errConflict
			}
			var err error
			if out, err = jsonpatch.MergePatch(doc, b.patch); err != nil {
				t.Fatal(err)
			}
		default:
			t.Fatalf("patch type %s", b.patchType)
		}
		var bound corev1alpha1.Shoot
		if err := json.Unmarshal(out, &bound); err != nil {
			t.Fatal(err)
		}
		return &bound, nil
	}
	t.Fatalf("every attempt failed a test and none was preconditioned on the resourceVersion: %d attempts", len(attempts))
	return nil, nil
}

// serverJSON is the shoot as the API server keeps it: a custom resource
// with a status subresource has no status until one is written to it.
func serverJSON(t *testing.T, shoot *corev1alpha1.Shoot) []byte {
	t.Helper()
	var doc map[string]any
	raw, err := json.Marshal(shoot)
	if err == nil {
		err = json.Unmarshal(raw, &doc)
	}
	if err != nil {
		t.Fatal(err)
	}
	if apiequality.Semantic.DeepEqual(shoot.Status, corev1alpha1.ShootStatus{}) {
		delete(doc, "status")
	}
	if raw, err = json.Marshal(doc); err != nil {
		t.Fatal(err)
	}
	return raw
}

// TestBindingTestsWhatTheDecisionReads binds versions of a shoot changed
// after the read: changes to what the decision reads refuse the binding,
// others do not, with or without a status at the read.
func TestBindingTestsWhatTheDecisionReads(t *testing.T) {
	evicted := coretest.MakeShoot("garden-dev", "s").CloudProfileName("aws").ResourceVersion("1").Obj()
	evicted.UID = "uid-1"
	evicted.Generation = 3
	evicted.Labels = map[string]string{"team": "web"}
	evicted.Annotations = map[string]string{corev1alpha1.AnnotationDescheduledFrom: "old"}
	withStatus := evicted.DeepCopy()
	withStatus.Status.SeedName = ptr.To("old")
	withStatus.Status.Networking = &corev1alpha1.NetworkingStatus{Pods: []string{"10.1.0.0/16"}}
	newShoot := coretest.MakeShoot("garden-dev", "s").CloudProfileName("aws").ResourceVersion("1").Obj()
	newShoot.UID = "uid-1"
	newShoot.Generation = 1

	lastOperation := func(s *corev1alpha1.Shoot) {
		s.Status.LastOperation = &corev1alpha1.LastOperation{Type: corev1alpha1.LastOperationTypeMigrate, State: corev1alpha1.LastOperationStatePending}
	}
	cases := []struct {
		name    string
		read    *corev1alpha1.Shoot
		change  func(*corev1alpha1.Shoot)
		refused bool
		sent    int // attempts sent until the binding was applied or refused
	}{
		{"status: unchanged", withStatus, func(*corev1alpha1.Shoot) {}, false, 1},
		{"status: another lastOperation", withStatus, lastOperation, false, 1},
		{"status: recreated", withStatus, func(s *corev1alpha1.Shoot) { s.UID = "uid-2" }, true, 2},
		{"status: spec changed", withStatus, func(s *corev1alpha1.Shoot) { s.Generation = 4 }, true, 2},
		{"status: being deleted", withStatus, func(s *corev1alpha1.Shoot) { s.DeletionTimestamp = ptr.To(metav1.Now()) }, true, 2},
		{"status: labels", withStatus, func(s *corev1alpha1.Shoot) { s.Labels["team"] = "db" }, true, 2},
		{"status: labels removed", withStatus, func(s *corev1alpha1.Shoot) { s.Labels = nil }, true, 2},
		{"status: annotations", withStatus, func(s *corev1alpha1.Shoot) { delete(s.Annotations, corev1alpha1.AnnotationDescheduledFrom) }, true, 2},
		{"status: seed in status", withStatus, func(s *corev1alpha1.Shoot) { s.Status.SeedName = ptr.To("other") }, true, 2},
		{"status: networks", withStatus, func(s *corev1alpha1.Shoot) { s.Status.Networking.Pods = []string{"10.2.0.0/16"} }, true, 2},
		{"status: networks removed", withStatus, func(s *corev1alpha1.Shoot) { s.Status.Networking = nil }, true, 2},
		{"evicted: unchanged", evicted, func(*corev1alpha1.Shoot) {}, false, 1},
		{"evicted: a lastOperation since", evicted, lastOperation, false, 2},
		{"evicted: seed in status", evicted, func(s *corev1alpha1.Shoot) { s.Status.SeedName = ptr.To("other") }, true, 3},
		{"evicted: lastOperation and labels", evicted, func(s *corev1alpha1.Shoot) { lastOperation(s); s.Labels = nil }, true, 3},
		{"new: unchanged", newShoot, func(*corev1alpha1.Shoot) {}, false, 1},
		{"new: a lastOperation", newShoot, lastOperation, true, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			current := c.read.DeepCopy()
			c.change(current)
			if !apiequality.Semantic.DeepEqual(current, c.read) {
				current.ResourceVersion = "2"
			}
			attempts := bindingAttempts(c.read, "new", placedAt)
			bound, err := applyBinding(t, attempts, current)
			if c.refused {
				if err == nil {
					t.Errorf("bound a shoot that changed: %s", c.name)
				}
			} else if err != nil {
				t.Fatalf("refused: %v", err)
			} else if ptr.Deref(bound.Spec.SeedName, "") != "new" {
				t.Errorf("spec.seedName %v after the binding, want new", bound.Spec.SeedName)
			} else if at, ok := helper.PlacedOn(bound, "new"); !ok || !at.Equal(placedAt) {
				t.Errorf("%s = %q after the binding, want the placement on new at %s", corev1alpha1.AnnotationPlacedOn,
					bound.Annotations[corev1alpha1.AnnotationPlacedOn], placedAt)
			} else {
				for k, v := range c.read.Annotations {
					if bound.Annotations[k] != v {
						t.Errorf("annotation %s = %q after the binding, want %q as read", k, bound.Annotations[k], v)
					}
				}
			}
			sent := len(attempts)
			for i, b := range attempts {
				if b.patchType != types.JSONPatchType {
					break
				}
				p, _ := jsonpatch.DecodePatch(b.patch)
				if _, err := p.Apply(serverJSON(t, current)); err == nil {
					sent = i + 1
					break
				}
			}
			if sent != c.sent {
				t.Errorf("%d attempts sent, want %d", sent, c.sent)
			}
		})
	}
}

// TestEvictedShootBoundWhenItsStatusLandsBetweenAttempts: a status (a
// gardenlet's, or an older graft-descheduler's lastOperation) lands after the
// read, which found none, and before the binding: the first attempt, which
// tests that there is none, is refused, and the second binds the shoot, with
// no conflict. With no status written since the read the first binds it.
func TestEvictedShootBoundWhenItsStatusLandsBetweenAttempts(t *testing.T) {
	read := coretest.MakeShoot("garden-dev", "s").CloudProfileName("aws").ResourceVersion("1").Obj()
	read.UID, read.Generation = "uid-1", 2
	read.Annotations = map[string]string{corev1alpha1.AnnotationDescheduledFrom: "old"}
	landed := read.DeepCopy()
	landed.Status.LastOperation = &corev1alpha1.LastOperation{Type: corev1alpha1.LastOperationTypeMigrate, State: corev1alpha1.LastOperationStatePending}
	landed.ResourceVersion = "2"

	attempts := bindingAttempts(read, "new", placedAt)
	apply := func(b binding, current *corev1alpha1.Shoot) error {
		if b.patchType != types.JSONPatchType {
			t.Fatalf("reached the resourceVersion binding (%s)", b.patchType)
		}
		p, err := jsonpatch.DecodePatch(b.patch)
		if err != nil {
			t.Fatal(err)
		}
		_, err = p.Apply(serverJSON(t, current))
		return err
	}
	if err := apply(attempts[0], read); err != nil {
		t.Fatalf("the first attempt was refused on the shoot as read: %v", err)
	}
	if err := apply(attempts[0], landed); err == nil {
		t.Fatal("the first attempt (no status) applied to a shoot with status")
	}
	if err := apply(attempts[1], landed); err != nil {
		t.Fatalf("the second attempt was refused: %v", err)
	}
	if err := apply(attempts[1], read); err == nil {
		t.Fatal("the second attempt applied to a shoot without status")
	}
}

// placedAt is the placement time the binding tests record.
var placedAt = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
