//go:build integration

package descheduler

import (
	"context"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/test/integration/descheduler/fixture"
)

// TestWritesFromTrimmedCacheKeepFields: the daemons' informers store shoots
// without managedFields (pkg/component/cachetrim), and the scheduler's
// binding and the descheduler's eviction (an update of the whole cached
// shoot) are built from those objects. Neither may lose on the server what
// the cache lacks: the managed fields of the shoot's other writers stay as
// they were, and so do the fields only they wrote, in metadata, spec and
// status.
func TestWritesFromTrimmedCacheKeepFields(t *testing.T) {
	ctx, env, l := setup(t, "trimwrites")
	must[*v1alpha1.Seed](t)(l.Seed(ctx, "a", -1))

	const name = "applied"
	shoots := l.Graft.CoreV1alpha1().Shoots(l.Name)
	apply := []byte(`{"apiVersion":"core.graft.dev/v1alpha1","kind":"Shoot",
		"metadata":{"name":"` + name + `","namespace":"` + l.Name + `",
			"labels":{"team":"a"},"annotations":{"tenant.example/note":"kept"},"finalizers":["tenant.example/protect"]},
		"spec":{"cloudProfile":{"kind":"CloudProfile","name":"` + fixture.CloudProfile + `"},"region":"` + l.Name + `",
			"provider":{"type":"aws","workers":[{"name":"pool","zones":["a","b"]}]},"purpose":"development",
			"networking":{"type":"calico","nodes":"10.180.0.0/16","pods":"100.96.0.0/11","services":"100.64.0.0/13"}}}`)
	if _, err := shoots.Patch(ctx, name, types.ApplyPatchType, apply, metav1.PatchOptions{FieldManager: "tenant", Force: ptr.To(true)}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, err := shoots.Patch(context.Background(), name, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
		if err != nil {
			t.Logf("removing the finalizer: %v", err)
		}
	})
	// The seed's agent reports the shoot's networks and its observed generation.
	shoot := must[*v1alpha1.Shoot](t)(shoots.Get(ctx, name, metav1.GetOptions{}))
	shoot.Status.Networking = &v1alpha1.NetworkingStatus{Nodes: []string{"10.180.0.0/16"}, EgressCIDRs: []string{"192.0.2.1/32"}}
	shoot.Status.ObservedGeneration = shoot.Generation
	shoot = must[*v1alpha1.Shoot](t)(shoots.UpdateStatus(ctx, shoot, metav1.UpdateOptions{FieldManager: "gardenlet"}))
	before := shoot.DeepCopy()
	for _, m := range []string{"tenant", "gardenlet"} {
		if managedBy(before, m) == "" {
			t.Fatalf("the shoot has no managed fields of %s: %+v", m, before.ManagedFields)
		}
	}

	startScheduler(t, ctx, env, "trimwrites-scheduler")
	eventually(t, ctx, 30*time.Second, "shoot bound to seed a", func() (bool, error) {
		s, err := shoots.Get(ctx, name, metav1.GetOptions{})
		return err == nil && fixture.Of(s) == l.SeedName("a"), err
	})
	checkKept(t, "after the scheduler's binding", before, must[*v1alpha1.Shoot](t)(shoots.Get(ctx, name, metav1.GetOptions{})))

	must[*v1alpha1.Seed](t)(l.Seed(ctx, "b", -1))
	d := startDescheduler(t, ctx, env, "trimwrites-descheduler", "d1", fast)
	eventually(t, ctx, 30*time.Second, "descheduler ready", func() (bool, error) { return d.Descheduler.Ready(), nil })
	if err := l.SetTaints(ctx, "a", drainTaint); err != nil {
		t.Fatal(err)
	}
	eventually(t, ctx, time.Minute, "shoot evicted from seed a and bound to seed b", func() (bool, error) {
		s, err := shoots.Get(ctx, name, metav1.GetOptions{})
		return err == nil && fixture.Of(s) == l.SeedName("b") && s.Annotations[v1alpha1.AnnotationDescheduledFrom] == l.SeedName("a"), err
	})
	checkKept(t, "after the descheduler's eviction and the new binding", before, must[*v1alpha1.Shoot](t)(shoots.Get(ctx, name, metav1.GetOptions{})))
}

// managedBy returns the fields manager owns on shoot, as JSON, or "".
func managedBy(shoot *v1alpha1.Shoot, manager string) string {
	for _, e := range shoot.ManagedFields {
		if e.Manager == manager && e.FieldsV1 != nil {
			return string(e.FieldsV1.Raw)
		}
	}
	return ""
}

// checkKept compares what the tenant and the seed's agent wrote on before
// with now.
func checkKept(t *testing.T, when string, before, now *v1alpha1.Shoot) {
	t.Helper()
	for _, m := range []string{"tenant", "gardenlet"} {
		if got, want := managedBy(now, m), managedBy(before, m); got != want {
			t.Errorf("%s: managed fields of %s are %s, were %s", when, m, got, want)
		}
	}
	if now.Labels["team"] != "a" || now.Annotations["tenant.example/note"] != "kept" || !slices.Contains(now.Finalizers, "tenant.example/protect") {
		t.Errorf("%s: labels %v, annotations %v, finalizers %v; the tenant's are gone", when, now.Labels, now.Annotations, now.Finalizers)
	}
	if !slices.EqualFunc(now.Spec.Provider.Workers, before.Spec.Provider.Workers, func(a, b v1alpha1.Worker) bool { return a.Name == b.Name && slices.Equal(a.Zones, b.Zones) }) ||
		ptr.Deref(now.Spec.Networking.Type, "") != "calico" || ptr.Deref(now.Spec.Purpose, "") != v1alpha1.ShootPurposeDevelopment {
		t.Errorf("%s: spec %+v lost the tenant's fields", when, now.Spec)
	}
	if now.Status.Networking == nil || !slices.Equal(now.Status.Networking.EgressCIDRs, []string{"192.0.2.1/32"}) || now.Status.ObservedGeneration != before.Status.ObservedGeneration {
		t.Errorf("%s: status %+v lost the agent's fields", when, now.Status)
	}
}
