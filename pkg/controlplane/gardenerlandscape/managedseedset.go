package gardenerlandscape

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// GardenletConfig is the GardenletConfiguration a ManagedSeed (or a
// Gardenlet object) holds for seed, a Gardener Seed (see Seed): the seed's
// spec, with a service network that holds the local garden's Services,
// which gardenlet checks of its seed cluster (here the garden itself).
func GardenletConfig(seed *unstructured.Unstructured) map[string]any {
	spec := seed.DeepCopy().Object["spec"].(map[string]any)
	spec["networks"].(map[string]any)["services"] = "10.0.0.0/16"
	return map[string]any{
		"apiVersion": "gardenlet.config.gardener.cloud/v1alpha1",
		"kind":       "GardenletConfiguration",
		"seedConfig": map[string]any{"spec": spec},
	}
}

// ManagedSeedSet is a ManagedSeedSet of namespace garden that
// gardener-apiserver validates: replicas of seeds like seed (a Gardener
// Seed, see Seed), each registered with labels, each on a shoot like shoot
// (a Gardener Shoot, see Shoot). A template is validated, not defaulted, so
// it says what defaulting would (each worker's maxSurge and maxUnavailable).
func ManagedSeedSet(name string, replicas int, labels map[string]string, seed, shoot *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	meta := map[string]any{}
	for k, v := range labels {
		meta[k] = v
	}
	config := GardenletConfig(seed)
	config["seedConfig"].(map[string]any)["metadata"] = map[string]any{"labels": meta}
	shoot = shoot.DeepCopy()
	workers, _, _ := unstructured.NestedSlice(shoot.Object, "spec", "provider", "workers")
	for _, w := range workers {
		w.(map[string]any)["maxSurge"], w.(map[string]any)["maxUnavailable"] = int64(1), int64(0)
	}
	if err := unstructured.SetNestedSlice(shoot.Object, workers, "spec", "provider", "workers"); err != nil {
		return nil, fmt.Errorf("ManagedSeedSet %s: %w", name, err)
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "seedmanagement.gardener.cloud/v1alpha1",
		"kind":       "ManagedSeedSet",
		"metadata":   map[string]any{"name": name, "namespace": "garden"},
		"spec": map[string]any{
			"replicas": int64(replicas),
			"selector": map[string]any{"matchLabels": meta},
			"template": map[string]any{
				"metadata": map[string]any{"labels": meta},
				"spec":     map[string]any{"gardenlet": map[string]any{"config": config}},
			},
			"shootTemplate": map[string]any{
				"metadata": map[string]any{"labels": meta},
				"spec":     shoot.Object["spec"],
			},
		},
	}}, nil
}
