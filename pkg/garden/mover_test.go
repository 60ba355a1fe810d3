package garden

import (
	"testing"

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
