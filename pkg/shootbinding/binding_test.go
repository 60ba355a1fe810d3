package shootbinding

import (
	"context"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"
)

func shootClient(rv string) *dynamicfake.FakeDynamicClient {
	shoot := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "core.gardener.cloud/v1beta1", "kind": "Shoot",
		"metadata": map[string]any{"namespace": "ns", "name": "s", "resourceVersion": rv},
		"spec":     map[string]any{"seedName": "a", "region": "eu-west-1"},
	}}
	return dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{Shoots: "ShootList"}, shoot)
}

func TestBindUpdatesThroughBindingAtTheVersionDecidedOn(t *testing.T) {
	client := shootClient("5")
	opts := metav1.UpdateOptions{FieldManager: "graftctl", DryRun: []string{metav1.DryRunAll}}
	if _, err := Bind(context.Background(), client.Resource(Shoots).Namespace("ns"), "s", "5", "b", opts); err != nil {
		t.Fatal(err)
	}
	var update clienttesting.UpdateActionImpl
	for _, a := range client.Actions() {
		if u, ok := a.(clienttesting.UpdateActionImpl); ok {
			update = u
		}
	}
	obj, ok := update.GetObject().(*unstructured.Unstructured)
	if !ok {
		t.Fatalf("no update sent: %v", client.Actions())
	}
	if update.GetSubresource() != "binding" {
		t.Errorf("update of subresource %q, want binding", update.GetSubresource())
	}
	if seed, _, _ := unstructured.NestedString(obj.Object, "spec", "seedName"); seed != "b" || obj.GetResourceVersion() != "5" {
		t.Errorf("sent spec.seedName %q at resourceVersion %s, want b at 5", seed, obj.GetResourceVersion())
	}
	if region, _, _ := unstructured.NestedString(obj.Object, "spec", "region"); region != "eu-west-1" {
		t.Errorf("the rest of the spec was not kept: region %q", region)
	}
	if update.UpdateOptions.FieldManager != "graftctl" || len(update.UpdateOptions.DryRun) != 1 {
		t.Errorf("update options %+v, want the caller's", update.UpdateOptions)
	}
}

func TestBindRefusesAShootThatChanged(t *testing.T) {
	client := shootClient("6")
	_, err := Bind(context.Background(), client.Resource(Shoots).Namespace("ns"), "s", "5", "b", metav1.UpdateOptions{})
	if !apierrors.IsConflict(err) {
		t.Fatalf("Bind of a shoot that changed: %v, want a conflict", err)
	}
	for _, a := range client.Actions() {
		if a.GetVerb() == "update" {
			t.Errorf("an update was sent for a shoot that changed")
		}
	}
}
