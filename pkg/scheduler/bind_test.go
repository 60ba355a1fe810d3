package scheduler

import (
	"encoding/json"
	"testing"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
)

// TestTestedBindingTestsWhatTheDecisionReads applies the binding patch, with
// the JSON patch library the API server applies it with, to versions of an
// evicted shoot changed after the read: changes to what the decision reads
// refuse it, others do not.
func TestTestedBindingTestsWhatTheDecisionReads(t *testing.T) {
	read := pendingShoot("s", "eu-west-1")
	read.UID = "uid-1"
	read.Generation = 3
	read.Labels = map[string]string{"team": "web"}
	read.Annotations = map[string]string{corev1alpha1.AnnotationDescheduledFrom: "old"}
	read.Status.SeedName = ptr.To("old")
	read.Status.Networking = &corev1alpha1.NetworkingStatus{Pods: []string{"10.1.0.0/16"}}
	patch, ok := testedBinding(read, "new")
	if !ok {
		t.Fatal("no tested binding for an evicted shoot")
	}
	p, err := jsonpatch.DecodePatch(patch)
	if err != nil {
		t.Fatalf("binding patch %s: %v", patch, err)
	}
	cases := []struct {
		name   string
		change func(*corev1alpha1.Shoot)
		refuse bool
	}{
		{"unchanged", func(*corev1alpha1.Shoot) {}, false},
		{"resourceVersion", func(s *corev1alpha1.Shoot) { s.ResourceVersion = "99" }, false},
		{"lastOperation", func(s *corev1alpha1.Shoot) {
			s.Status.LastOperation = &corev1alpha1.LastOperation{Type: corev1alpha1.LastOperationTypeMigrate, State: corev1alpha1.LastOperationStatePending}
		}, false},
		{"uid (recreated)", func(s *corev1alpha1.Shoot) { s.UID = "uid-2" }, true},
		{"generation (spec)", func(s *corev1alpha1.Shoot) { s.Generation = 4 }, true},
		{"deletion", func(s *corev1alpha1.Shoot) { s.DeletionTimestamp = ptr.To(metav1.Now()) }, true},
		{"labels", func(s *corev1alpha1.Shoot) { s.Labels["team"] = "db" }, true},
		{"labels removed", func(s *corev1alpha1.Shoot) { s.Labels = nil }, true},
		{"annotations", func(s *corev1alpha1.Shoot) { delete(s.Annotations, corev1alpha1.AnnotationDescheduledFrom) }, true},
		{"status seed", func(s *corev1alpha1.Shoot) { s.Status.SeedName = ptr.To("other") }, true},
		{"status networks", func(s *corev1alpha1.Shoot) { s.Status.Networking.Pods = []string{"10.2.0.0/16"} }, true},
		{"status networks removed", func(s *corev1alpha1.Shoot) { s.Status.Networking = nil }, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			current := read.DeepCopy()
			c.change(current)
			doc, err := json.Marshal(current)
			if err != nil {
				t.Fatal(err)
			}
			out, err := p.Apply(doc)
			if c.refuse {
				if err == nil {
					t.Errorf("the binding applied to a shoot whose %s changed", c.name)
				}
				return
			}
			if err != nil {
				t.Fatalf("the binding was refused: %v", err)
			}
			var bound corev1alpha1.Shoot
			if err := json.Unmarshal(out, &bound); err != nil {
				t.Fatal(err)
			}
			if ptr.Deref(bound.Spec.SeedName, "") != "new" {
				t.Errorf("spec.seedName %v after the binding, want new", bound.Spec.SeedName)
			}
		})
	}
}

// TestNewShootIsBoundOnItsResourceVersion: a shoot without status has no
// /status to test below; its binding falls back to the resourceVersion.
func TestNewShootIsBoundOnItsResourceVersion(t *testing.T) {
	if _, ok := testedBinding(pendingShoot("s", "eu-west-1"), "a"); ok {
		t.Error("a tested binding for a shoot without status")
	}
	var patch map[string]map[string]any
	if err := json.Unmarshal(versionedBinding(pendingShoot("s", "eu-west-1"), "a"), &patch); err != nil {
		t.Fatal(err)
	}
	if patch["metadata"]["resourceVersion"] == "" || patch["spec"]["seedName"] != "a" {
		t.Errorf("versioned binding %v", patch)
	}
}
