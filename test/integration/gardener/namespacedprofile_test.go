//go:build gardener

package gardener

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

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
		markSeedReady(t, seed, 10, nil)
		labelPool(t, seed, []string{"a", "b"}[i])
	}
	l.namespacedProfile(t, map[string]any{"matchLabels": map[string]any{"pool": "a"}}, map[string]any{"matchLabels": map[string]any{"pool": "b"}})

	startGraftScheduler(t, "graft-scheduler-ncp", l.schedulerName())
	l.createGraftShootFrom(t, l.makeShoot("team").CloudProfileRef("NamespacedCloudProfile", l.cloudProfile))
	bound := waitForShoot(t, l, "team", "spec.seedName set", func(s *unstructured.Unstructured) bool {
		_, found, _ := unstructured.NestedString(s.Object, "spec", "seedName")
		return found
	})
	if got, _, _ := unstructured.NestedString(bound.Object, "spec", "seedName"); got != l.seeds[1] {
		t.Errorf("shoot bound to %s, want %s (the namespaced profile selects pool b)", got, l.seeds[1])
	}
}

// TestNamespacedCloudProfileShootMovesOnGardener: a shoot of a
// NamespacedCloudProfile on a drained seed is migrated by graft-descheduler
// to the seed its namespaced profile selects, not to the one the parent
// CloudProfile of the same name selects; graftctl drain --dry-run,
// simulate --from-cluster and describe say so first. (They once read cluster-wide
// profiles only and left such a shoot where it was.)
func TestNamespacedCloudProfileShootMovesOnGardener(t *testing.T) {
	l := migrationLandscape(t, "ncpmove", 10, "src", "dsta", "dstb")
	src, dsta, dstb := l.seeds[0], l.seeds[1], l.seeds[2]
	for seed, pool := range map[string]string{src: "src", dsta: "a", dstb: "b"} {
		labelPool(t, seed, pool)
	}
	pools := func(values ...any) map[string]any {
		return map[string]any{"matchExpressions": []any{map[string]any{"key": "pool", "operator": "In", "values": values}}}
	}
	l.namespacedProfile(t, pools("src", "a"), pools("src", "b"))
	namespaced := func(obj *unstructured.Unstructured) {
		if err := unstructured.SetNestedField(obj.Object, "NamespacedCloudProfile", "spec", "cloudProfile", "kind"); err != nil {
			t.Fatal(err)
		}
	}
	l.createOn(t, "team", src, namespaced)
	l.createGraftShootSelecting(t, "waiting", l.project, namespaced)

	key := "shoot/" + l.namespace + "/team"
	// The dry run prints the drain's plan: the shoot's row names its destination.
	planned := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(l.namespace+"/team") + `\s+` + regexp.QuoteMeta(dstb) + `\s+now\s`)
	if out := onGardener(t, "drain", src, "--strategy=SameRegion", "--dry-run"); !planned.MatchString(out) {
		t.Errorf("drain --dry-run printed\n%s\nwant %s moving to seed/%s (its namespaced profile selects pool b)", out, key, dstb)
	}
	if out := onGardener(t, "taint", "seed", src, "maintenance:NoExecute"); out != "seed/"+src+" tainted\n" {
		t.Fatalf("taint printed %q", out)
	}
	var predicted string
	for _, line := range strings.Split(strings.TrimSpace(onGardener(t, "simulate", "--from-cluster", "--strategy=SameRegion", "-o", "json")), "\n") {
		var res struct{ Shoot, Seed, Error string }
		if err := json.Unmarshal([]byte(line), &res); err != nil {
			t.Fatalf("simulate printed %q: %v", line, err)
		}
		if res.Shoot == l.namespace+"/waiting" {
			predicted = res.Seed + res.Error
		}
	}
	if predicted != dstb {
		t.Errorf("simulate --from-cluster placed the waiting shoot of the namespaced profile on %q, want %s", predicted, dstb)
	}
	if out := onGardener(t, "describe", "shoot", "-n", l.namespace, "waiting", "--strategy=SameRegion"); !strings.Contains(out, "scheduled to seed "+dstb+"\n") {
		t.Errorf("describe shoot waiting printed\n%s\nwant it scheduled to seed %s", out, dstb)
	}

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	newGardenletStandIn(time.Second).start(t, ctx)
	startGraftDescheduler(t, "graft-descheduler-ncpmove", "config.interval=2s", "config.evictionRate=0")
	moved := l.migratedOff(t, "team", src)
	if dest, _, _ := unstructured.NestedString(moved.Object, "spec", "seedName"); dest != dstb {
		t.Errorf("shoot team migrated to %s, want %s (its namespaced profile selects pool b; the parent, pool a)", dest, dstb)
	}
}

// labelPool labels a seed pool=pool.
func labelPool(t *testing.T, seed, pool string) {
	t.Helper()
	patch := []byte(`{"metadata":{"labels":{"pool":"` + pool + `"}}}`)
	if _, err := dynamicClient(t).Resource(seeds).Patch(t.Context(), seed, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
}

// namespacedProfile gives the landscape's CloudProfile the seed selector
// parentSelector and creates a NamespacedCloudProfile of the same name in the
// landscape's namespace whose merged spec (written here: Gardener's
// controller does not run) is the parent's with the seed selector selector.
func (l *landscape) namespacedProfile(t *testing.T, parentSelector, selector map[string]any) {
	t.Helper()
	profiles := dynamicClient(t).Resource(cloudProfiles)
	err := admitted(t, func(ctx context.Context) error {
		parent, err := profiles.Get(ctx, l.cloudProfile, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if err := unstructured.SetNestedMap(parent.Object, parentSelector, "spec", "seedSelector"); err != nil {
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
	merged["seedSelector"] = selector
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
}
