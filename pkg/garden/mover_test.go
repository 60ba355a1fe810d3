package garden

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	"github.com/graft-dev/client-go/clientset/versioned/fake"
	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/coretest"
)

// graft's mover clears the shoot's seed and adds the annotations it is
// given, keeping the shoot's others; without annotations it touches none.
func TestGraftMoverClearsTheSeed(t *testing.T) {
	shoot := coretest.MakeShoot("garden-dev", "s").Annotation("keep", "me").Seed("a").Obj()
	mover := NewGraft(fake.NewSimpleClientset(shoot.DeepCopy())).Mover()
	if mover.Migrates() || mover.Refusal(errConflict, "a", "b") != nil {
		t.Fatal("graft's mover migrates or refuses")
	}
	moved, err := mover.Move(t.Context(), shoot, "a", "b", nil, "test", false)
	if err != nil {
		t.Fatal(err)
	}
	if moved.Spec.SeedName != nil || moved.Annotations["keep"] != "me" {
		t.Fatalf("moved without annotations: seed %v, annotations %v", moved.Spec.SeedName, moved.Annotations)
	}
	moved.Spec.SeedName = ptr.To("a")
	moved, err = mover.Move(t.Context(), moved, "a", "b", map[string]string{corev1alpha1.AnnotationDescheduledFrom: "a"}, "test", false)
	if err != nil {
		t.Fatal(err)
	}
	if moved.Spec.SeedName != nil || moved.Annotations["keep"] != "me" || moved.Annotations[corev1alpha1.AnnotationDescheduledFrom] != "a" {
		t.Fatalf("moved with annotations: seed %v, annotations %v", moved.Spec.SeedName, moved.Annotations)
	}
	if got := mover.Moved("a", "b", "drained"); got != "Evicted from seed a: drained" {
		t.Errorf("Moved = %q", got)
	}
}

// On Gardener, MoveTested binds with a JSON patch of shoots/binding that
// tests what the decision read, Gardener's status.hibernated and the
// tenant's graft.dev/toleration-seconds among it: a tenant's other
// annotation changed since is kept, a changed toleration fails the write.
func TestGardenerMoveTestedTestsWhatTheDecisionRead(t *testing.T) {
	stored := func(tolerationSeconds string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "core.gardener.cloud/v1beta1", "kind": "Shoot",
			"metadata": map[string]any{"namespace": "ns", "name": "s", "resourceVersion": "9", "uid": "u1", "generation": int64(2),
				"annotations": map[string]any{"tenant.example/tick": "7", corev1alpha1.AnnotationTolerationSeconds: tolerationSeconds}},
			"spec":   map[string]any{"seedName": "a", "region": "eu-west-1"},
			"status": map[string]any{"hibernated": false, "seedName": "a", "lastOperation": map[string]any{"type": "Reconcile", "state": "Succeeded"}},
		}}
	}
	read, err := FromGardener(stored("[]"))
	if err != nil {
		t.Fatal(err)
	}
	shoot := read.(*corev1alpha1.Shoot)
	shoot.ResourceVersion = "8" // the tenant wrote since
	shoot.Annotations["tenant.example/tick"] = "6"

	client := coretest.FakeGardener(stored("[]"))
	mover := NewGardener(client).Mover()
	moved, err := mover.MoveTested(t.Context(), shoot, "a", "b", map[string]string{corev1alpha1.AnnotationDescheduledFrom: "a"}, "test")
	if err != nil {
		t.Fatalf("a write of an annotation no decision reads failed the move: %v", err)
	}
	if got := ptr.Deref(moved.Spec.SeedName, ""); got != "b" {
		t.Errorf("seed %q, want b", got)
	}
	if a := moved.Annotations; a["tenant.example/tick"] != "7" || a[corev1alpha1.AnnotationDescheduledFrom] != "a" ||
		a[corev1alpha1.AnnotationLiveMigrate] != "false" || a[corev1alpha1.AnnotationPlacedOn] == "" {
		t.Errorf("annotations %v", a)
	}
	for _, a := range client.Actions() {
		if p, ok := a.(clienttesting.PatchActionImpl); ok && (p.GetSubresource() != "binding" || p.GetPatchType() != types.JSONPatchType) {
			t.Errorf("patch of %q as %s, want a JSON patch of binding", p.GetSubresource(), p.GetPatchType())
		}
	}

	client = coretest.FakeGardener(stored(`[{"key":"maintenance","tolerationSeconds":99999}]`))
	if _, err := NewGardener(client).Mover().MoveTested(t.Context(), shoot, "a", "b", nil, "test"); err == nil {
		t.Error("moved although the tenant changed its toleration since the decision")
	}
}
