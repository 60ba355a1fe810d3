package garden

import (
	"context"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/coretest"
)

func shootClient(rv string) *dynamicfake.FakeDynamicClient {
	shoot := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "core.gardener.cloud/v1beta1", "kind": "Shoot",
		"metadata": map[string]any{"namespace": "ns", "name": "s", "resourceVersion": rv},
		"spec":     map[string]any{"seedName": "a", "region": "eu-west-1"},
	}}
	return coretest.FakeGardener(shoot)
}

func TestBindUpdatesThroughBindingAtTheVersionDecidedOn(t *testing.T) {
	client := shootClient("5")
	opts := metav1.UpdateOptions{FieldManager: "graftctl", DryRun: []string{metav1.DryRunAll}}
	if _, err := bindGardener(context.Background(), client.Resource(Gardener.Resource("shoots")).Namespace("ns"), "s", "5", "b", opts); err != nil {
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

func gardenerShoot(resourceVersion string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "core.gardener.cloud/v1beta1",
		"kind":       "Shoot",
		"metadata":   map[string]any{"name": "s", "namespace": "garden-dev", "resourceVersion": resourceVersion},
		"spec": map[string]any{
			"region":        "eu-west-1",
			"schedulerName": "graft-scheduler",
			// A field graft's type does not have: the binding must keep it.
			"addons": map[string]any{"nginxIngress": map[string]any{"enabled": true}},
		},
	}}
}

// On Gardener a shoot is bound with an update of the whole Shoot, read
// afresh, through shoots/binding, carrying the resourceVersion decided on; a
// shoot that changed since the decision is not written at all.
func TestGardenerBindUsesBindingSubresource(t *testing.T) {
	for _, tc := range []struct {
		name       string
		liveRV     string
		wantUpdate bool
	}{
		{"unchanged", "5", true},
		{"changed since the decision", "6", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dyn := coretest.FakeGardener(gardenerShoot(tc.liveRV))
			api := NewGardener(dyn)
			decided, err := convert[corev1alpha1.Shoot](gardenerShoot("5"), nil)
			if err != nil {
				t.Fatal(err)
			}
			bound, err := api.Bind(t.Context(), decided, "seed-a", time.Now())

			var updates []clienttesting.UpdateAction
			for _, a := range dyn.Actions() {
				if u, ok := a.(clienttesting.UpdateAction); ok {
					updates = append(updates, u)
				}
			}
			if !tc.wantUpdate {
				if !apierrors.IsConflict(err) {
					t.Errorf("bind of a shoot changed since the decision: %v, want a conflict", err)
				}
				if len(updates) != 0 {
					t.Errorf("bind of a shoot changed since the decision wrote %v", updates)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(updates) != 1 || updates[0].GetSubresource() != "binding" {
				t.Fatalf("bind sent updates %v, want one of shoots/binding", updates)
			}
			sent := updates[0].GetObject().(*unstructured.Unstructured)
			if sent.GetResourceVersion() != "5" {
				t.Errorf("binding carries resourceVersion %q, want the one decided on, 5", sent.GetResourceVersion())
			}
			if seed, _, _ := unstructured.NestedString(sent.Object, "spec", "seedName"); seed != "seed-a" {
				t.Errorf("binding sets spec.seedName %q, want seed-a", seed)
			}
			if enabled, _, _ := unstructured.NestedBool(sent.Object, "spec", "addons", "nginxIngress", "enabled"); !enabled {
				t.Errorf("binding dropped a field of Gardener's Shoot that graft's type lacks: %v", sent.Object["spec"])
			}
			if bound == nil || bound.Spec.SeedName == nil || *bound.Spec.SeedName != "seed-a" {
				t.Errorf("bind returned %+v, want the bound shoot", bound)
			}
		})
	}
}
