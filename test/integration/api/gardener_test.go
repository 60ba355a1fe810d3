//go:build integration

package api

import (
	"context"
	"os"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/graft-dev/graft/test/framework"
)

// TestGardenerManifestsAccepted applies Seed, Shoot and CloudProfile manifests
// written for Gardener, with only the apiVersion changed, and checks that the
// fields graft reads survive while the rest is pruned.
func TestGardenerManifestsAccepted(t *testing.T) {
	env := framework.Shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dyn := dynamic.NewForConfigOrDie(env.Config())

	f, err := os.Open("testdata/gardener-landscape.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	decoder := utilyaml.NewYAMLOrJSONDecoder(f, 4096)
	resources := map[string]string{"CloudProfile": "cloudprofiles", "Seed": "seeds", "Shoot": "shoots"}
	for {
		obj := &unstructured.Unstructured{}
		if err := decoder.Decode(&obj.Object); err != nil {
			break
		}
		gvr := schema.GroupVersionResource{Group: "core.graft.dev", Version: "v1alpha1", Resource: resources[obj.GetKind()]}
		var ri dynamic.ResourceInterface = dyn.Resource(gvr)
		if ns := obj.GetNamespace(); ns != "" {
			ri = dyn.Resource(gvr).Namespace(ns)
		}
		if _, err := ri.Create(ctx, obj, metav1.CreateOptions{}); err != nil {
			t.Fatalf("the API server refused the Gardener %s %s: %v", obj.GetKind(), obj.GetName(), err)
		}
	}

	client := env.GraftClient()
	seed, err := client.CoreV1alpha1().Seeds().Get(ctx, "gardener-aws-eu", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if seed.Spec.Backup == nil || seed.Spec.Networks.ShootDefaults == nil || *seed.Spec.Networks.ShootDefaults.Pods != "10.96.0.0/11" ||
		len(seed.Spec.Provider.Zones) != 3 || !seed.Spec.Settings.Scheduling.Visible || seed.Spec.Taints[0].Key != "seed.gardener.cloud/protected" {
		t.Errorf("seed lost fields graft reads: %+v", seed.Spec)
	}
	shoot, err := client.CoreV1alpha1().Shoots("garden").Get(ctx, "gardener-shoot", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if shoot.Spec.CloudProfile.Name != "gardener-aws" || shoot.Spec.Provider.Workers[0].Zones[0] != "eu-west-1a" ||
		string(shoot.Spec.ControlPlane.HighAvailability.FailureTolerance.Type) != "zone" || *shoot.Spec.Networking.Nodes != "10.180.0.0/16" {
		t.Errorf("shoot lost fields graft reads: %+v", shoot.Spec)
	}
	raw, err := dyn.Resource(schema.GroupVersionResource{Group: "core.graft.dev", Version: "v1alpha1", Resource: "shoots"}).Namespace("garden").Get(ctx, "gardener-shoot", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, found, _ := unstructured.NestedFieldNoCopy(raw.Object, "spec", "kubernetes"); found {
		out, _ := yaml.Marshal(raw.Object)
		t.Errorf("an unknown field was stored instead of pruned:\n%s", out)
	}
}
