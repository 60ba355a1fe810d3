//go:build gardener

package gardener

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/graft-dev/graft/pkg/controlplane/gardenerlandscape"
)

// TestNamespacedCloudProfileOnGardener: graft-scheduler on Gardener's API
// decides a shoot naming a NamespacedCloudProfile with the profile's merged
// status.cloudProfileSpec, as Gardener's scheduler does: its seed selector
// (pool b) is followed, not the parent CloudProfile's of the same name.
// Gardener's controller, which would merge the profile, does not run here;
// the test writes the merged spec.
func TestNamespacedCloudProfileOnGardener(t *testing.T) {
	l := newLandscape(t, "ncp", "a", "b")
	for i, seed := range l.seeds {
		readySeed(t, seed, 10, nil)
		patch := []byte(`{"metadata":{"labels":{"pool":"` + []string{"a", "b"}[i] + `"}}}`)
		if _, err := dynamicClient(t).Resource(seeds).Patch(t.Context(), seed, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// The parent selects pool a.
	profiles := dynamicClient(t).Resource(cloudProfiles)
	err := admitted(t, func(ctx context.Context) error {
		parent, err := profiles.Get(ctx, l.cloudProfile, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if err := unstructured.SetNestedStringMap(parent.Object, map[string]string{"pool": "a"}, "spec", "seedSelector", "matchLabels"); err != nil {
			return err
		}
		_, err = profiles.Update(ctx, parent, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("giving the parent a seed selector: %v", err)
	}
	parent, err := profiles.Get(t.Context(), l.cloudProfile, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ncp := create(t, gardenerlandscape.NamespacedCloudProfiles, l.namespace, `apiVersion: core.gardener.cloud/v1beta1
kind: NamespacedCloudProfile
metadata:
  name: `+l.cloudProfile+`
  namespace: `+l.namespace+`
spec:
  parent:
    kind: CloudProfile
    name: `+l.cloudProfile+`
`)
	merged, _, _ := unstructured.NestedMap(parent.Object, "spec")
	merged["seedSelector"] = map[string]any{"matchLabels": map[string]any{"pool": "b"}}
	err = admitted(t, func(ctx context.Context) error {
		cur, err := dynamicClient(t).Resource(gardenerlandscape.NamespacedCloudProfiles).Namespace(l.namespace).Get(ctx, ncp.GetName(), metav1.GetOptions{})
		if err != nil {
			return err
		}
		if err := unstructured.SetNestedMap(cur.Object, merged, "status", "cloudProfileSpec"); err != nil {
			return err
		}
		_, err = dynamicClient(t).Resource(gardenerlandscape.NamespacedCloudProfiles).Namespace(l.namespace).UpdateStatus(ctx, cur, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("writing the merged profile: %v", err)
	}

	startGraftScheduler(t, "graft-scheduler-ncp", l.schedulerName())
	spec := l.shootSpec("team")
	spec.CloudProfileKind = "NamespacedCloudProfile"
	l.createGraftShootFrom(t, spec)
	bound := waitForShoot(t, l, "team", "spec.seedName set", func(s *unstructured.Unstructured) bool {
		_, found, _ := unstructured.NestedString(s.Object, "spec", "seedName")
		return found
	})
	if got, _, _ := unstructured.NestedString(bound.Object, "spec", "seedName"); got != l.seeds[1] {
		t.Errorf("shoot bound to %s, want %s (the namespaced profile selects pool b)", got, l.seeds[1])
	}
}
