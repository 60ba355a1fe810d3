package scheduler

import (
	"context"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	graftfake "github.com/graft-dev/client-go/clientset/versioned/fake"
	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/coretest"
)

func withLastOperation(shoot *corev1alpha1.Shoot, t corev1alpha1.LastOperationType, st corev1alpha1.LastOperationState) *corev1alpha1.Shoot {
	shoot.Status.LastOperation = &corev1alpha1.LastOperation{Type: t, State: st, Description: "test"}
	return shoot
}

func evictedShoot(name, from string) *corev1alpha1.Shoot {
	s := coretest.MakeShoot("garden-dev", name).Region("eu-west-1").CloudProfileName("aws").ResourceVersion("1").Obj()
	s.ResourceVersion = ""
	s.Annotations = map[string]string{corev1alpha1.AnnotationDescheduledFrom: from}
	return withLastOperation(s, corev1alpha1.LastOperationTypeMigrate, corev1alpha1.LastOperationStatePending)
}

func getShoot(t *testing.T, graft *graftfake.Clientset, name string) *corev1alpha1.Shoot {
	t.Helper()
	got, err := graft.CoreV1alpha1().Shoots("garden-dev").Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// writes returns the shoot writes as "verb[/subresource]".
func writes(graft *graftfake.Clientset) []string {
	var out []string
	for _, a := range graft.Actions() {
		if a.GetResource().Resource != "shoots" || (a.GetVerb() != "patch" && a.GetVerb() != "update") {
			continue
		}
		w := a.GetVerb()
		if a.GetSubresource() != "" {
			w += "/" + a.GetSubresource()
		}
		out = append(out, w)
	}
	return out
}

// A binding ends the wait that a Pending lastOperation reports, whoever wrote
// it: the descheduler (Migrate) or the scheduler itself (Create).
func TestBindClearsPendingLastOperation(t *testing.T) {
	for _, typ := range []corev1alpha1.LastOperationType{corev1alpha1.LastOperationTypeMigrate, corev1alpha1.LastOperationTypeCreate} {
		t.Run(string(typ), func(t *testing.T) {
			shoot := evictedShoot("s", "gone")
			shoot.Status.LastOperation.Type = typ
			s, graft, _ := newTestScheduler(t, coretest.MakeSeed("a").Region("eu-west-1").Allocatable(-1).Obj(), coretest.MakeCloudProfile("aws").Obj(), shoot)
			if err := s.syncHandler(context.Background(), "garden-dev/s"); err != nil {
				t.Fatal(err)
			}
			got := getShoot(t, graft, "s")
			if ptr.Deref(got.Spec.SeedName, "") != "a" || got.Status.LastOperation != nil {
				t.Errorf("after the binding: seed %v, lastOperation %+v; want a and none", got.Spec.SeedName, got.Status.LastOperation)
			}
			if w := strings.Join(writes(graft), ","); w != "patch,patch/status" {
				t.Errorf("writes %s, want the binding and one status write", w)
			}
			// The status write is preconditioned on the binding's version.
			var status clienttesting.PatchAction
			for _, a := range graft.Actions() {
				if p, ok := a.(clienttesting.PatchAction); ok && a.GetSubresource() == "status" {
					status = p
				}
			}
			if status == nil {
				t.Fatal("no status write")
			}
			if p := string(status.GetPatch()); !strings.Contains(p, `"resourceVersion"`) || !strings.Contains(p, `"lastOperation":null`) {
				t.Errorf("status patch %s", p)
			}
		})
	}
}

// Nothing to clear costs nothing: a shoot without lastOperation, or with one
// that is not about waiting for a seed, is bound with one write.
func TestBindWithoutPendingLastOperationWritesOnce(t *testing.T) {
	fresh := coretest.MakeShoot("garden-dev", "fresh").Region("eu-west-1").CloudProfileName("aws").ResourceVersion("1").Obj()
	fresh.ResourceVersion = ""
	reconciled := withLastOperation(coretest.MakeShoot("garden-dev", "reconciled").Region("eu-west-1").CloudProfileName("aws").ResourceVersion("1").Obj(), corev1alpha1.LastOperationTypeReconcile, corev1alpha1.LastOperationStateSucceeded)
	reconciled.ResourceVersion = ""
	s, graft, _ := newTestScheduler(t, coretest.MakeSeed("a").Region("eu-west-1").Allocatable(-1).Obj(), coretest.MakeCloudProfile("aws").Obj(), fresh, reconciled)
	for _, name := range []string{"fresh", "reconciled"} {
		if err := s.syncHandler(context.Background(), "garden-dev/"+name); err != nil {
			t.Fatal(err)
		}
	}
	if w := strings.Join(writes(graft), ","); w != "patch,patch" {
		t.Errorf("writes %s, want one binding per shoot", w)
	}
	if op := getShoot(t, graft, "reconciled").Status.LastOperation; op == nil || op.Type != corev1alpha1.LastOperationTypeReconcile {
		t.Errorf("a lastOperation that is not about waiting for a seed was changed: %+v", op)
	}
}

var shootsResource = schema.GroupVersionResource{Group: corev1alpha1.SchemeGroupVersion.Group, Version: corev1alpha1.SchemeGroupVersion.Version, Resource: "shoots"}

// conflictOnce makes the first status patch of a shoot fail with a conflict
// after change has been applied to the stored shoot, as if another writer
// came between the binding and the status write.
func conflictOnce(t *testing.T, graft *graftfake.Clientset, change func(*corev1alpha1.Shoot)) {
	done := false
	graft.PrependReactor("patch", "shoots", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if done || a.GetSubresource() != "status" {
			return false, nil, nil
		}
		done = true
		obj, err := graft.Tracker().Get(shootsResource, "garden-dev", "s")
		if err != nil {
			t.Error(err)
			return false, nil, nil
		}
		shoot := obj.(*corev1alpha1.Shoot).DeepCopy()
		change(shoot)
		if err := graft.Tracker().Update(shootsResource, shoot, "garden-dev"); err != nil {
			t.Error(err)
		}
		return true, nil, apierrors.NewConflict(shootsResource.GroupResource(), "s", nil)
	})
}

// A conflict on the status write: the shoot is read again and cleared while
// it is still bound and waiting.
func TestClearPendingRetriesOnConflict(t *testing.T) {
	s, graft, _ := newTestScheduler(t, coretest.MakeSeed("a").Region("eu-west-1").Allocatable(-1).Obj(), coretest.MakeCloudProfile("aws").Obj(), evictedShoot("s", "gone"))
	conflictOnce(t, graft, func(s *corev1alpha1.Shoot) { s.Labels = map[string]string{"touched": "yes"} })
	if err := s.syncHandler(context.Background(), "garden-dev/s"); err != nil {
		t.Fatal(err)
	}
	got := getShoot(t, graft, "s")
	if got.Status.LastOperation != nil || got.Labels["touched"] != "yes" {
		t.Errorf("after a conflict: lastOperation %+v, labels %v; want cleared, the other change kept", got.Status.LastOperation, got.Labels)
	}
	if w := strings.Join(writes(graft), ","); w != "patch,patch/status,patch/status" {
		t.Errorf("writes %s", w)
	}
}

// A shoot evicted again between the binding and the status write keeps the
// descheduler's new Migrate/Pending.
func TestClearPendingKeepsANewEviction(t *testing.T) {
	s, graft, _ := newTestScheduler(t, coretest.MakeSeed("a").Region("eu-west-1").Allocatable(-1).Obj(), coretest.MakeCloudProfile("aws").Obj(), evictedShoot("s", "gone"))
	conflictOnce(t, graft, func(s *corev1alpha1.Shoot) {
		s.Spec.SeedName = nil
		s.Annotations[corev1alpha1.AnnotationDescheduledFrom] = "a"
		s.Status.LastOperation = &corev1alpha1.LastOperation{Type: corev1alpha1.LastOperationTypeMigrate, State: corev1alpha1.LastOperationStatePending, Description: "evicted from a"}
	})
	if err := s.syncHandler(context.Background(), "garden-dev/s"); err != nil {
		t.Fatal(err)
	}
	got := getShoot(t, graft, "s")
	if op := got.Status.LastOperation; op == nil || op.Description != "evicted from a" {
		t.Errorf("the new eviction's lastOperation was lost: %+v", op)
	}
	if w := strings.Join(writes(graft), ","); w != "patch,patch/status" {
		t.Errorf("writes %s, want no second status write", w)
	}
}

// A scheduling failure is recorded only on the version it was decided on.
func TestReportFailureIsPreconditioned(t *testing.T) {
	shoot := coretest.MakeShoot("garden-dev", "s").Region("ap-south-1").CloudProfileName("aws").ResourceVersion("1").Obj()
	shoot.ResourceVersion = ""
	s, graft, _ := newTestScheduler(t, coretest.MakeSeed("a").Region("eu-west-1").Allocatable(-1).Obj(), coretest.MakeCloudProfile("aws").Obj(), shoot)
	if err := s.syncHandler(context.Background(), "garden-dev/s"); err != nil {
		t.Fatalf("sync: %v", err)
	}
	for _, a := range graft.Actions() {
		if p, ok := a.(clienttesting.PatchAction); ok && a.GetSubresource() == "status" {
			if !strings.Contains(string(p.GetPatch()), `"resourceVersion"`) {
				t.Errorf("status patch without precondition: %s", p.GetPatch())
			}
			return
		}
	}
	t.Error("no status write")
}
