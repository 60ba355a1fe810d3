//go:build gardener

package gardener

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/graft-dev/graft/pkg/controlplane"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"

	"github.com/graft-dev/graft/test/framework"
)

// TestGardenerGroupsServedByGardenerAPIServer: each of Gardener's groups is
// an APIService backed by the gardener-apiserver Service (not a local group
// such as a CRD's), kube-apiserver reports it Available, and discovery through
// kube-apiserver lists the Shoot subresources graft uses.
func TestGardenerGroupsServedByGardenerAPIServer(t *testing.T) {
	ctx := t.Context()
	dyn := dynamicClient(t)
	for _, gv := range controlplane.GardenerAPIGroupVersions {
		name := gv.Version + "." + gv.Group
		svc, err := dyn.Resource(apiServices).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("APIService %s: %v", name, err)
		}
		if got, _, _ := unstructured.NestedString(svc.Object, "spec", "service", "name"); got != "gardener-apiserver" {
			t.Errorf("APIService %s is backed by service %q, want gardener-apiserver", name, got)
		}
		if !conditionTrue(svc, "Available") {
			t.Errorf("APIService %s is not Available: %v", name, svc.Object["status"])
		}
	}
	if _, err := dyn.Resource(crds).Get(ctx, "shoots.core.gardener.cloud", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("a CRD shoots.core.gardener.cloud exists (err=%v): Shoots must come from gardener-apiserver", err)
	}

	disco, err := discovery.NewDiscoveryClientForConfig(framework.Shared(t).Config())
	if err != nil {
		t.Fatal(err)
	}
	list, err := disco.ServerResourcesForGroupVersion("core.gardener.cloud/v1beta1")
	if err != nil {
		t.Fatalf("discovery of core.gardener.cloud/v1beta1: %v", err)
	}
	served := map[string]bool{}
	for _, r := range list.APIResources {
		served[r.Name] = true
	}
	for _, want := range []string{"shoots", "shoots/binding", "shoots/status", "seeds", "projects", "cloudprofiles"} {
		if !served[want] {
			t.Errorf("core.gardener.cloud/v1beta1 does not serve %s", want)
		}
	}
}

// TestLandscapePassesGardenerValidation: a CloudProfile, a Project with its
// namespace, a CredentialsBinding, two Seeds and Shoots are accepted; the
// shoot comes back with Gardener's defaults, and Gardener's admission refuses
// a shoot in a region its CloudProfile does not offer, so the objects really
// went through Gardener's rules.
func TestLandscapePassesGardenerValidation(t *testing.T) {
	l := newLandscape(t, "valid", "seed-a", "seed-b")
	shoot := l.createShoot(t, "one")
	l.createShoot(t, "two")

	if purpose, _, _ := unstructured.NestedString(shoot.Object, "spec", "purpose"); purpose != "evaluation" {
		t.Errorf("spec.purpose = %q, want Gardener's default evaluation", purpose)
	}
	if seed, found, _ := unstructured.NestedString(shoot.Object, "spec", "seedName"); found {
		t.Errorf("a new shoot has spec.seedName %q; nothing should have bound it", seed)
	}

	bad := l.shootObject(t, l.makeShoot("elsewhere"))
	if err := unstructured.SetNestedField(bad.Object, "mars-north-1", "spec", "region"); err != nil {
		t.Fatal(err)
	}
	err := admitted(t, func(ctx context.Context) error {
		_, err := dynamicClient(t).Resource(shoots).Namespace(l.namespace).Create(ctx, bad, metav1.CreateOptions{})
		return err
	})
	if err == nil {
		t.Fatal("a shoot in a region the CloudProfile does not offer was accepted")
	}
	t.Logf("Gardener refuses the shoot in an unknown region: %v", err)
	if !strings.Contains(err.Error(), "mars-north-1") {
		t.Errorf("the refusal does not name the region: %v", err)
	}
}

// TestBindingClearsCreatePending: binding a shoot whose lastOperation is
// Create/Pending through shoots/binding sets spec.seedName and clears that
// lastOperation (Gardener's binding strategy), fills the networks the shoot
// left open from the seed's defaults (Gardener's shoot mutator), and leaves
// status.seedName to gardenlet.
func TestBindingClearsCreatePending(t *testing.T) {
	l := newLandscape(t, "pending", "seed-a", "seed-b")
	shoot := l.createShoot(t, "one")
	client := dynamicClient(t).Resource(shoots).Namespace(l.namespace)

	if err := unstructured.SetNestedMap(shoot.Object, map[string]any{
		"type":           "Create",
		"state":          "Pending",
		"progress":       int64(0),
		"description":    "waiting for a seed",
		"lastUpdateTime": time.Now().UTC().Format(time.RFC3339),
	}, "status", "lastOperation"); err != nil {
		t.Fatal(err)
	}
	shoot, err := client.UpdateStatus(t.Context(), shoot, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("setting lastOperation Create/Pending: %v", err)
	}
	if state, _, _ := unstructured.NestedString(shoot.Object, "status", "lastOperation", "state"); state != "Pending" {
		t.Fatalf("status.lastOperation.state = %q after the status update, want Pending", state)
	}

	bound := bind(t, l, shoot, l.seeds[0])
	if got, _, _ := unstructured.NestedString(bound.Object, "spec", "seedName"); got != l.seeds[0] {
		t.Errorf("spec.seedName = %q after binding, want %s", got, l.seeds[0])
	}
	if got, _, _ := unstructured.NestedString(bound.Object, "spec", "networking", "pods"); got != shootPods {
		t.Errorf("spec.networking.pods = %q after binding, want the seed's default %s", got, shootPods)
	}
	if op, found, _ := unstructured.NestedMap(bound.Object, "status", "lastOperation"); found {
		t.Errorf("status.lastOperation = %v after binding, want it cleared", op)
	}
	if got, found, _ := unstructured.NestedString(bound.Object, "status", "seedName"); found {
		t.Errorf("status.seedName = %q after binding; only gardenlet sets it", got)
	}
}

// TestBoundShootStaysOnItsSeed: once bound, a shoot's spec.seedName can be
// neither cleared (through shoots/binding or a plain update) nor changed by a
// plain update, and moving it through shoots/binding is a control-plane
// migration, refused while the seeds have no backup; it stays on its seed.
func TestBoundShootStaysOnItsSeed(t *testing.T) {
	l := newLandscape(t, "sticky", "seed-a", "seed-b")
	bound := bind(t, l, l.createShoot(t, "one"), l.seeds[0])
	client := dynamicClient(t).Resource(shoots).Namespace(l.namespace)

	cleared := bound.DeepCopy()
	unstructured.RemoveNestedField(cleared.Object, "spec", "seedName")
	err := update(t, client, cleared, "binding")
	expectRefused(t, "clearing spec.seedName through shoots/binding", err, "spec.seedName is already set to '"+l.seeds[0]+"' and cannot be changed to 'nil'")

	err = update(t, client, cleared)
	expectRefused(t, "clearing spec.seedName with a plain update", err, "spec.seedName is already set to '"+l.seeds[0]+"' and cannot be changed to 'nil'")

	moved := bound.DeepCopy()
	if err := unstructured.SetNestedField(moved.Object, l.seeds[1], "spec", "seedName"); err != nil {
		t.Fatal(err)
	}
	err = update(t, client, moved)
	expectRefused(t, "changing spec.seedName with a plain update", err, "please use the shoots/binding subresource")

	err = update(t, client, moved, "binding")
	expectRefused(t, "moving the shoot through shoots/binding", err, "cannot change seed name because backup is not configured for old seed \""+l.seeds[0]+"\"")

	now, err := client.Get(t.Context(), bound.GetName(), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, _, _ := unstructured.NestedString(now.Object, "spec", "seedName"); got != l.seeds[0] {
		t.Errorf("spec.seedName = %q after the refused writes, want %s", got, l.seeds[0])
	}
	if now.GetResourceVersion() != bound.GetResourceVersion() {
		t.Errorf("the shoot changed (resourceVersion %s, bound at %s) although every write was refused", now.GetResourceVersion(), bound.GetResourceVersion())
	}
}

// bind sets shoot's spec.seedName through the shoots/binding subresource, as
// Gardener's scheduler does, preconditioned on the shoot's resourceVersion.
func bind(t *testing.T, l *landscape, shoot *unstructured.Unstructured, seed string) *unstructured.Unstructured {
	t.Helper()
	shoot = shoot.DeepCopy()
	if err := unstructured.SetNestedField(shoot.Object, seed, "spec", "seedName"); err != nil {
		t.Fatal(err)
	}
	var bound *unstructured.Unstructured
	err := admitted(t, func(ctx context.Context) (err error) {
		bound, err = dynamicClient(t).Resource(shoots).Namespace(l.namespace).Update(ctx, shoot, metav1.UpdateOptions{}, "binding")
		return err
	})
	if err != nil {
		t.Fatalf("binding shoot %s/%s to %s: %v", l.namespace, shoot.GetName(), seed, err)
	}
	return bound
}

// update writes obj (through subresources, if any), as admitted.
func update(t *testing.T, client dynamic.ResourceInterface, obj *unstructured.Unstructured, subresources ...string) error {
	t.Helper()
	return admitted(t, func(ctx context.Context) error {
		_, err := client.Update(ctx, obj, metav1.UpdateOptions{}, subresources...)
		return err
	})
}

// expectRefused fails the test unless err is Gardener's admission refusing
// the write (Forbidden) with a message that says want.
func expectRefused(t *testing.T, what string, err error, want string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s was accepted", what)
		return
	}
	t.Logf("%s: %v", what, err)
	if !apierrors.IsForbidden(err) {
		t.Errorf("%s failed for another reason than a refusal by admission: %v", what, err)
	}
	if !strings.Contains(err.Error(), want) {
		t.Errorf("%s: the refusal does not say %q: %v", what, want, err)
	}
}

func conditionTrue(obj *unstructured.Unstructured, condition string) bool {
	conditions, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, c := range conditions {
		if m, ok := c.(map[string]any); ok && m["type"] == condition {
			return m["status"] == "True"
		}
	}
	return false
}
