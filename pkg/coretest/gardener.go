package coretest

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
)

// GardenerResource is a resource of Gardener's core.gardener.cloud/v1beta1.
func GardenerResource(resource string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: resource}
}

// FakeGardener returns a fake dynamic client serving Gardener's seeds,
// shoots, cloud profiles, namespaced cloud profiles, projects and
// seedmanagement objects, holding
// objs.
func FakeGardener(objs ...runtime.Object) *dynamicfake.FakeDynamicClient {
	return dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{
		GardenerResource("seeds"):                   "SeedList",
		GardenerResource("shoots"):                  "ShootList",
		GardenerResource("cloudprofiles"):           "CloudProfileList",
		GardenerResource("namespacedcloudprofiles"): "NamespacedCloudProfileList",
		GardenerResource("projects"):                "ProjectList",
		seedManagement("managedseeds"):              "ManagedSeedList",
		seedManagement("gardenlets"):                "GardenletList",
		seedManagement("managedseedsets"):           "ManagedSeedSetList",
	}, objs...)
}

func seedManagement(resource string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: "seedmanagement.gardener.cloud", Version: "v1alpha1", Resource: resource}
}

// GardenerSeedConfig returns a ManagedSeed or Gardenlet (kind) of the garden
// namespace for seed name whose gardenlet configuration's seedConfig holds
// the given taint keys.
func GardenerSeedConfig(kind, name, resourceVersion string, taintKeys ...string) *unstructured.Unstructured {
	taints := make([]any, 0, len(taintKeys))
	for _, k := range taintKeys {
		taints = append(taints, map[string]any{"key": k})
	}
	config := map[string]any{
		"apiVersion": "gardenlet.config.gardener.cloud/v1alpha1",
		"kind":       "GardenletConfiguration",
		"seedConfig": map[string]any{
			"metadata": map[string]any{"name": name},
			"spec":     map[string]any{"provider": map[string]any{"type": "aws", "region": "eu-west-1"}, "taints": taints},
		},
	}
	spec := map[string]any{"config": config}
	if kind == "ManagedSeed" {
		spec = map[string]any{"shoot": map[string]any{"name": name}, "gardenlet": spec}
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "seedmanagement.gardener.cloud/v1alpha1",
		"kind":       kind,
		"metadata":   map[string]any{"name": name, "namespace": "garden", "resourceVersion": resourceVersion},
		"spec":       spec,
	}}
}

// AsGardener turns one of graft's objects into Gardener's of kind, as
// gardener-apiserver would serve it: the field names are the same.
func AsGardener(obj any, kind string) *unstructured.Unstructured {
	data, err := json.Marshal(obj)
	if err != nil {
		panic(fmt.Sprintf("encoding a %T: %v", obj, err))
	}
	u := &unstructured.Unstructured{}
	if err := json.Unmarshal(data, &u.Object); err != nil {
		panic(fmt.Sprintf("decoding a %T: %v", obj, err))
	}
	u.SetAPIVersion("core.gardener.cloud/v1beta1")
	u.SetKind(kind)
	return u
}
