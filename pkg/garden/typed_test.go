package garden

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

// The typed client's decoder reads a list of Gardener's Shoots as graft's,
// with Gardener's semantics on every item, as the dynamic path does.
func TestGardenerJSONDecodesListsWithGardenersSemantics(t *testing.T) {
	obj, _, err := gardenerJSON{}.Decode([]byte(`{"apiVersion":"core.gardener.cloud/v1beta1","kind":"ShootList",
		"metadata":{"resourceVersion":"9"},
		"items":[{"metadata":{"name":"a","namespace":"garden-dev"},
			"spec":{"seedName":"s1","tolerations":[{"key":"k","effect":"NoExecute","tolerationSeconds":5}]}}]}`), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	list, ok := obj.(*v1alpha1.ShootList)
	if !ok {
		t.Fatalf("decoded a %T, want *v1alpha1.ShootList", obj)
	}
	if list.ResourceVersion != "9" || len(list.Items) != 1 || list.Items[0].Name != "a" {
		t.Fatalf("list %+v", list)
	}
	if tol := list.Items[0].Spec.Tolerations[0]; tol.Effect != "" || tol.TolerationSeconds != nil {
		t.Errorf("toleration %+v kept what Gardener's types do not have", tol)
	}
}

func TestGardenerJSONDecodesStatusAndRefusesOtherKinds(t *testing.T) {
	obj, _, err := gardenerJSON{}.Decode([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Conflict","code":409}`), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if status, ok := obj.(*metav1.Status); !ok || status.Reason != metav1.StatusReasonConflict {
		t.Errorf("decoded %#v, want a Conflict Status", obj)
	}
	var event metav1.WatchEvent
	if _, _, err := (gardenerJSON{}).Decode([]byte(`{"type":"ADDED","object":{"kind":"Shoot"}}`), nil, &event); err != nil || event.Type != "ADDED" || len(event.Object.Raw) == 0 {
		t.Errorf("watch event %+v, error %v", event, err)
	}
	// An object that does not begin with its kind is read whole for it.
	obj, _, err = gardenerJSON{}.Decode([]byte(`{ "apiVersion": "core.gardener.cloud/v1beta1", "metadata": {"name": "s"}, "kind": "Seed" }`), nil, nil)
	if seed, ok := obj.(*v1alpha1.Seed); err != nil || !ok || seed.Name != "s" {
		t.Errorf("decoded %#v, error %v; want Seed s", obj, err)
	}
	if _, _, err := (gardenerJSON{}).Decode([]byte(`{"kind":"Project","apiVersion":"core.gardener.cloud/v1beta1"}`), nil, nil); err == nil || !strings.Contains(err.Error(), "Project") {
		t.Errorf("a Project: error %v, want one naming the kind", err)
	}
}

// BenchmarkGardenerDecode compares the two ways a Shoot from gardener-apiserver
// becomes graft's: decoded into a map and converted (the dynamic client), or
// decoded straight into graft's type (the typed client).
func BenchmarkGardenerDecode(b *testing.B) {
	data, err := yaml.YAMLToJSON([]byte(benchShoot))
	if err != nil {
		b.Fatal(err)
	}
	// The API server writes the kind first (YAMLToJSON sorts the keys).
	data = append([]byte(`{"kind":"Shoot",`), data[1:]...)
	b.Run("dynamic", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			u, err := runtime.Decode(unstructured.UnstructuredJSONScheme, data)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := FromGardener(u.(*unstructured.Unstructured)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("typed", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := (gardenerJSON{}).Decode(data, nil, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}
