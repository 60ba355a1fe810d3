package cachetrim_test

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"testing"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/randfill"

	"github.com/graft-dev/client-go/clientset/versioned/scheme"
	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/algorithm"
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
	out, err := cachetrim.After(convert, cachetrim.Transform)("raw")
	if err != nil || gotIn != "raw" || out != any(converted) {
		t.Fatalf("After(convert)(raw) = %v, %v (convert saw %v); want the converted shoot", out, err, gotIn)
	}
	if converted.ManagedFields != nil {
		t.Error("the converted shoot keeps its managed fields")
	}

	boom := errors.New("boom")
	if _, err := cachetrim.After(func(any) (any, error) { return nil, boom }, cachetrim.Transform)("raw"); !errors.Is(err, boom) {
		t.Errorf("After passed on %v, want the conversion's error", err)
	}
}

// TestPlacementKeepsWhatTheCounterReads fills shoots at random and checks
// that what Placement keeps counts every shoot on the same seeds as the
// whole object does, under the same key and resourceVersion, and that the
// rest is gone.
func TestPlacementKeepsWhatTheCounterReads(t *testing.T) {
	f := randfill.New().NilChance(0.3).NumElements(1, 3)
	whole, kept := algorithm.NewShootCounter(), algorithm.NewShootCounter()
	var seeds []string
	for range 200 {
		shoot := &v1alpha1.Shoot{}
		f.Fill(shoot)
		// A few seed names, so that shoots share seeds and migrate.
		for _, name := range []*string{shoot.Spec.SeedName, shoot.Status.SeedName} {
			if name != nil {
				*name = fmt.Sprintf("seed-%d", len(*name)%4)
				seeds = append(seeds, *name)
			}
		}
		in := shoot.DeepCopy()
		out, err := cachetrim.Placement(shoot)
		if err != nil {
			t.Fatal(err)
		}
		small := out.(*v1alpha1.Shoot)
		if !apiequality.Semantic.DeepEqual(shoot, in) {
			t.Fatal("Placement changed the shoot it was given")
		}
		if k1, k2 := algorithm.ShootKey(in), algorithm.ShootKey(small); k1 != k2 || small.ResourceVersion != in.ResourceVersion || small.UID != in.UID {
			t.Errorf("kept %s (%s) at %s, want %s (%s) at %s", k2, small.UID, small.ResourceVersion, k1, in.UID, in.ResourceVersion)
		}
		if got, want := kept.Set(small), whole.Set(in); !slices.Equal(got, want) {
			t.Errorf("counting the kept shoot changed seeds %v, the whole one %v", got, want)
		}
		if small.Labels != nil || small.Spec.Networking != nil || small.Spec.Tolerations != nil || small.Status.LastOperation != nil {
			t.Errorf("Placement kept more than the placement: %+v", small)
		}
		again, _ := cachetrim.Placement(small)
		if !apiequality.Semantic.DeepEqual(again, small) {
			t.Error("a second Placement changed the object again")
		}
	}
	for _, s := range seeds {
		if whole.Count(s) != kept.Count(s) {
			t.Errorf("seed %s: %d shoots counted from whole objects, %d from kept ones", s, whole.Count(s), kept.Count(s))
		}
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "m"}}}}
	if out, _ := cachetrim.Placement(cm); out != any(cm) || cm.ManagedFields != nil {
		t.Error("Placement does not trim other objects as Transform does")
	}
}

// TestUnboundKeepsWaitingShootsWhole checks that Unbound gives a shoot
// without spec.seedName what Transform gives it, and a bound one what
// Placement gives it.
func TestUnboundKeepsWaitingShootsWhole(t *testing.T) {
	pending := func() *v1alpha1.Shoot {
		return &v1alpha1.Shoot{
			ObjectMeta: metav1.ObjectMeta{Namespace: "garden-p", Name: "s", ResourceVersion: "7", Labels: map[string]string{"project": "p"},
				ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}},
			Spec:   v1alpha1.ShootSpec{Region: "eu-west-1", Tolerations: []v1alpha1.Toleration{{Key: "k"}}},
			Status: v1alpha1.ShootStatus{SeedName: ptr.To("old")},
		}
	}
	for _, seedName := range []*string{nil, ptr.To("")} {
		shoot := pending()
		shoot.Spec.SeedName = seedName
		want, _ := cachetrim.Transform(shoot.DeepCopy())
		got, err := cachetrim.Unbound(shoot)
		if err != nil || !apiequality.Semantic.DeepEqual(got, want) {
			t.Errorf("spec.seedName %v: Unbound gave %+v (%v), want what Transform gives: %+v", seedName, got, err, want)
		}
	}
	bound := pending()
	bound.Spec.SeedName = ptr.To("new")
	want, _ := cachetrim.Placement(bound.DeepCopy())
	got, err := cachetrim.Unbound(bound)
	if err != nil || !apiequality.Semantic.DeepEqual(got, want) {
		t.Errorf("bound: Unbound gave %+v (%v), want what Placement gives: %+v", got, err, want)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "m"}}}}
	if out, _ := cachetrim.Unbound(cm); out != any(cm) || cm.ManagedFields != nil {
		t.Error("Unbound does not trim other objects as Transform does")
	}
}

// TestTransformSharesRepeatedStrings decodes the same shoot twice, as two
// informer events would, and checks that after the transform the strings
// shoots share point to one copy while the shoot's own name does not.
func TestTransformSharesRepeatedStrings(t *testing.T) {
	data, err := os.ReadFile("testdata/shoot.json")
	if err != nil {
		t.Fatal(err)
	}
	decode := func() *v1alpha1.Shoot {
		obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(data, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		out, err := cachetrim.Transform(obj)
		if err != nil {
			t.Fatal(err)
		}
		return out.(*v1alpha1.Shoot)
	}
	a, b := decode(), decode()
	if !apiequality.Semantic.DeepEqual(a, b) {
		t.Fatal("two decodings of one shoot differ after the transform")
	}
	same := func(x, y string) bool { return unsafe.StringData(x) == unsafe.StringData(y) }
	for name, pair := range map[string][2]string{
		"namespace":         {a.Namespace, b.Namespace},
		"label value":       {a.Labels["project.gardener.cloud/name"], b.Labels["project.gardener.cloud/name"]},
		"region":            {a.Spec.Region, b.Spec.Region},
		"nodes network":     {*a.Spec.Networking.Nodes, *b.Spec.Networking.Nodes},
		"zone":              {a.Spec.Provider.Workers[1].Zones[2], b.Spec.Provider.Workers[1].Zones[2]},
		"seed":              {*a.Spec.SeedName, *b.Spec.SeedName},
		"toleration":        {a.Spec.Tolerations[0].Key, b.Spec.Tolerations[0].Key},
		"egress in status":  {a.Status.Networking.EgressCIDRs[0], b.Status.Networking.EgressCIDRs[0]},
		"annotation (seed)": {a.Annotations[v1alpha1.AnnotationDescheduledFrom], b.Annotations[v1alpha1.AnnotationDescheduledFrom]},
	} {
		if !same(pair[0], pair[1]) {
			t.Errorf("%s %q: two copies", name, pair[0])
		}
	}
	if same(a.Name, b.Name) || same(a.ResourceVersion, b.ResourceVersion) {
		t.Error("the shoot's own name or resourceVersion was interned")
	}
}
