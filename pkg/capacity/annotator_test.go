package capacity

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

func TestDropShootManagedFieldsKeepsSeeds(t *testing.T) {
	fields := []metav1.ManagedFieldsEntry{{Manager: "gardenlet"}}
	shoot := &v1alpha1.Shoot{ObjectMeta: metav1.ObjectMeta{Name: "s", ManagedFields: fields}}
	seed := &v1alpha1.Seed{ObjectMeta: metav1.ObjectMeta{Name: "s", ManagedFields: fields}}
	for _, obj := range []any{shoot, seed} {
		if _, err := dropShootManagedFields(obj); err != nil {
			t.Fatal(err)
		}
	}
	if shoot.ManagedFields != nil {
		t.Error("shoot managed fields kept")
	}
	if len(seed.ManagedFields) != 1 {
		t.Error("seed managed fields dropped: they tell who publishes capacity")
	}
}
