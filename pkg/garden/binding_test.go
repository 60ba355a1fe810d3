package garden

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
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

func TestBindPatchesBindingAtTheVersionDecidedOn(t *testing.T) {
	client := shootClient("5")
	opts := metav1.PatchOptions{FieldManager: "graftctl", DryRun: []string{metav1.DryRunAll}}
	if _, err := bindGardener(context.Background(), client.Resource(Gardener.Resource("shoots")).Namespace("ns"), "s", types.MergePatchType, gardenerBinding("5", "b", nil), opts); err != nil {
		t.Fatal(err)
	}
	var patches []clienttesting.PatchActionImpl
	for _, a := range client.Actions() {
		switch a := a.(type) {
		case clienttesting.PatchActionImpl:
			patches = append(patches, a)
		case clienttesting.GetAction, clienttesting.UpdateAction:
			t.Errorf("bind sent a %s: one patch is the whole binding", a.GetVerb())
		}
	}
	if len(patches) != 1 {
		t.Fatalf("patches sent: %v, want one", client.Actions())
	}
	p := patches[0]
	if p.GetSubresource() != "binding" || p.GetPatchType() != types.MergePatchType {
		t.Errorf("patch of subresource %q (%s), want a merge patch of binding", p.GetSubresource(), p.GetPatchType())
	}
	if want := `{"metadata":{"resourceVersion":"5"},"spec":{"seedName":"b"}}`; string(p.GetPatch()) != want {
		t.Errorf("patch %s, want %s", p.GetPatch(), want)
	}
	if p.PatchOptions.FieldManager != "graftctl" || len(p.PatchOptions.DryRun) != 1 {
		t.Errorf("patch options %+v, want the caller's", p.PatchOptions)
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

// On Gardener a shoot is bound with a merge patch of shoots/binding carrying
// the resourceVersion decided on, which the API server applies to the Shoot
// it holds (fields graft's types lack are kept); a shoot that changed since
// the decision gets a conflict. The fake answers the precondition as the API
// server does.
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
			dyn.PrependReactor("patch", "shoots", func(a clienttesting.Action) (bool, runtime.Object, error) {
				var p struct {
					Metadata struct {
						ResourceVersion string `json:"resourceVersion"`
					} `json:"metadata"`
				}
				_ = json.Unmarshal(a.(clienttesting.PatchAction).GetPatch(), &p)
				if p.Metadata.ResourceVersion != tc.liveRV {
					return true, nil, apierrors.NewConflict(Gardener.Resource("shoots").GroupResource(), "s", errors.New("the object has been modified"))
				}
				return false, nil, nil
			})
			api := NewGardener(dyn)
			decided, err := convert[corev1alpha1.Shoot](gardenerShoot("5"), nil)
			if err != nil {
				t.Fatal(err)
			}
			bound, err := api.Bind(t.Context(), decided, "seed-a", time.Now())

			if !tc.wantUpdate {
				if !apierrors.IsConflict(err) {
					t.Errorf("bind of a shoot changed since the decision: %v, want a conflict", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			stored, err := dyn.Resource(Gardener.Resource("shoots")).Namespace("garden-dev").Get(t.Context(), "s", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if seed, _, _ := unstructured.NestedString(stored.Object, "spec", "seedName"); seed != "seed-a" {
				t.Errorf("stored spec.seedName %q, want seed-a", seed)
			}
			if enabled, _, _ := unstructured.NestedBool(stored.Object, "spec", "addons", "nginxIngress", "enabled"); !enabled {
				t.Errorf("the binding lost a field of Gardener's Shoot that graft's type lacks: %v", stored.Object["spec"])
			}
			if bound == nil || bound.Spec.SeedName == nil || *bound.Spec.SeedName != "seed-a" {
				t.Errorf("bind returned %+v, want the bound shoot", bound)
			}
		})
	}
}
