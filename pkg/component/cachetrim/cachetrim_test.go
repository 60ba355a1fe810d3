package cachetrim_test

import (
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"
	"sigs.k8s.io/randfill"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/component/cachetrim"
)

// trimmed is an object the transform trims, filled in every field.
type trimmed interface {
	runtime.Object
	metav1.Object
}

// TestTransformDropsOnlyManagedFields fills every field of each kind the
// daemons cache at random and checks that the transform drops
// managedFields and nothing else: a field added to the API later is kept
// until someone decides otherwise here.
func TestTransformDropsOnlyManagedFields(t *testing.T) {
	f := randfill.New().NilChance(0).NumElements(1, 3)
	for range 20 {
		for _, obj := range []trimmed{&v1alpha1.Shoot{}, &v1alpha1.CloudProfile{}, &corev1.ConfigMap{}} {
			f.Fill(obj)
			if len(obj.GetManagedFields()) == 0 {
				t.Fatalf("%T filled without managed fields", obj)
			}
			want := obj.DeepCopyObject().(trimmed)
			want.SetManagedFields(nil)
			out, err := cachetrim.Transform(obj)
			if err != nil {
				t.Fatal(err)
			}
			if out != any(obj) {
				t.Errorf("%T: the transform returned another object; it trims in place", obj)
			}
			if !apiequality.Semantic.DeepEqual(out, want) {
				t.Errorf("%T: the transform changed more than managedFields", obj)
			}
			again, _ := cachetrim.Transform(out)
			if !apiequality.Semantic.DeepEqual(again, want) {
				t.Errorf("%T: a second transform changed the object again", obj)
			}
		}
	}
}

// TestTransformKeepsSeeds: graft-capacity-annotator tells from a seed's
// managed fields whether its agent publishes status.capacity.
func TestTransformKeepsSeeds(t *testing.T) {
	f := randfill.New().NilChance(0).NumElements(1, 3)
	seed := &v1alpha1.Seed{}
	f.Fill(seed)
	want := seed.DeepCopy()
	if _, err := cachetrim.Transform(seed); err != nil {
		t.Fatal(err)
	}
	if !apiequality.Semantic.DeepEqual(seed, want) {
		t.Error("the transform changed a seed")
	}
}

func TestTransformDropsShootManagedFields(t *testing.T) {
	fields := []metav1.ManagedFieldsEntry{{Manager: "gardenlet"}}
	shoot := &v1alpha1.Shoot{ObjectMeta: metav1.ObjectMeta{Name: "s", ManagedFields: fields}}
	u := &unstructured.Unstructured{}
	u.SetManagedFields(fields)
	for _, obj := range []metav1.Object{shoot, u} {
		if _, err := cachetrim.Transform(obj); err != nil {
			t.Fatal(err)
		}
		if obj.GetManagedFields() != nil {
			t.Errorf("%T: managed fields kept", obj)
		}
	}
}

// TestTransformPassesOtherValues: what is not an API object (an informer
// never hands one, but a transform must not fail on it) passes unchanged.
func TestTransformPassesOtherValues(t *testing.T) {
	tomb := cache.DeletedFinalStateUnknown{Key: "ns/s", Obj: &v1alpha1.Shoot{ObjectMeta: metav1.ObjectMeta{ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "m"}}}}}
	out, err := cachetrim.Transform(tomb)
	if err != nil || out != any(tomb) {
		t.Errorf("Transform(tombstone) = %v, %v; want it unchanged", out, err)
	}
}

func TestAfter(t *testing.T) {
	converted := &v1alpha1.Shoot{ObjectMeta: metav1.ObjectMeta{Name: "s", ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "gardenlet"}}}}
	var gotIn any
	convert := func(obj any) (any, error) { gotIn = obj; return converted, nil }
	out, err := cachetrim.After(convert)("raw")
	if err != nil || gotIn != "raw" || out != any(converted) {
		t.Fatalf("After(convert)(raw) = %v, %v (convert saw %v); want the converted shoot", out, err, gotIn)
	}
	if converted.ManagedFields != nil {
		t.Error("the converted shoot keeps its managed fields")
	}

	boom := errors.New("boom")
	if _, err := cachetrim.After(func(any) (any, error) { return nil, boom })("raw"); !errors.Is(err, boom) {
		t.Errorf("After passed on %v, want the conversion's error", err)
	}
}
