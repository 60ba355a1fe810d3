//go:build gardener

package gardener

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/graft-dev/graft/pkg/controlplane"
	"github.com/graft-dev/graft/pkg/controlplane/gardenerlandscape"
	"github.com/graft-dev/graft/test/framework"
)

var gardenlets = schema.GroupVersionResource{Group: "seedmanagement.gardener.cloud", Version: "v1alpha1", Resource: "gardenlets"}

// gardenletConfig is the GardenletConfiguration of a seed of the landscape
// (gardenerlandscape.GardenletConfig; the seed's name is the object's, set
// when gardenlet is deployed).
func (l *landscape) gardenletConfig(t *testing.T, seed string, index int) map[string]any {
	t.Helper()
	obj, err := gardenerlandscape.Seed(gardenerlandscape.MakeSeed(seed, region, index).Obj(), l.project+"-dns")
	if err != nil {
		t.Fatal(err)
	}
	return gardenerlandscape.GardenletConfig(obj)
}

// restartGardenlet runs gardenlet with config until it has registered its
// seed: written the Seed's spec from seedConfig, which it does at every
// start, and exited. It returns the Seed's taints as gardenlet left them.
func restartGardenlet(t *testing.T, seed string, config map[string]any) string {
	t.Helper()
	env := framework.Shared(t)
	dir := filepath.Join(t.TempDir(), "gardenlet-"+seed)
	p, err := controlplane.RunGardenlet(t.Context(), env.ControlPlane, dir, seed, config)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Stop() })
	// The observable fact: gardenlet logs that it goes on past registerSeed,
	// which writes the Seed (a write that changes nothing leaves no trace on
	// the Seed).
	const registered = "Updating last operation status of processing Shoots to 'Aborted'"
	err = wait.PollUntilContextTimeout(t.Context(), 200*time.Millisecond, 3*time.Minute, true, func(context.Context) (bool, error) {
		log, _ := os.ReadFile(p.Log())
		if strings.Contains(string(log), registered) {
			return true, nil
		}
		return false, p.Exited()
	})
	if err != nil {
		log, _ := os.ReadFile(p.Log())
		t.Fatalf("gardenlet of seed %s did not register its Seed: %v; its log:\n%s", seed, err, lastLines(string(log), 60))
	}
	if err := p.Stop(); err != nil {
		t.Logf("stopping gardenlet of seed %s: %v", seed, err)
	}
	taints, _ := seedTaints(t, seed)
	return taints
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

func jsonOf(v any) string {
	data, _ := json.Marshal(v)
	return string(data)
}

// TestTaintsLastWhereGardenletKeepsThem: gardenlet v1.150.0 writes its
// Seed's spec from its configuration at every start. A seed whose gardenlet
// configuration is a Gardenlet object in the garden (as gardener-operator
// deploys it) keeps a cordon graftctl made, since graftctl wrote it into the
// configuration too; a taint written onto that Seed alone is gone after
// gardenlet's restart, and `graftctl get seeds` marks it beforehand. A seed
// whose gardenlet was deployed by hand loses graftctl's taint at the restart,
// as graftctl warned.
func TestTaintsLastWhereGardenletKeepsThem(t *testing.T) {
	if framework.Shared(t).ControlPlane == nil {
		t.Fatal("the Gardener tests run their own local garden")
	}
	if _, err := controlplane.GardenletBinary(); err != nil {
		t.Fatal(err)
	}
	l := newLandscapeWith(t, "glet")
	operated, byHand := l.project+"-operated", l.project+"-byhand"
	l.seeds = []string{operated, byHand}

	// The Gardenlet object gardener-operator would deploy operated's
	// gardenlet from; byHand's configuration lives outside the garden.
	gardenlet := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "seedmanagement.gardener.cloud/v1alpha1",
		"kind":       "Gardenlet",
		"metadata":   map[string]any{"name": operated, "namespace": "garden"},
		"spec": map[string]any{
			"deployment": map[string]any{"helm": map[string]any{"ociRepository": map[string]any{"ref": "registry.example/gardener/gardenlet:" + controlplane.GardenerVersion}}},
			"config":     l.gardenletConfig(t, operated, 0),
		},
	}}
	if _, err := dynamicClient(t).Resource(gardenlets).Namespace("garden").Create(t.Context(), gardenlet, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating the Gardenlet of seed %s: %v", operated, err)
	}
	t.Cleanup(func() {
		_ = dynamicClient(t).Resource(gardenlets).Namespace("garden").Delete(context.Background(), operated, metav1.DeleteOptions{})
	})
	deployedConfig := func() map[string]any {
		obj, err := dynamicClient(t).Resource(gardenlets).Namespace("garden").Get(t.Context(), operated, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		config, _, _ := unstructured.NestedMap(obj.Object, "spec", "config")
		return config
	}
	byHandConfig := l.gardenletConfig(t, byHand, 1)

	if got := restartGardenlet(t, operated, deployedConfig()); got != "null" {
		t.Fatalf("seed %s registered with taints %s, want none", operated, got)
	}
	if got := restartGardenlet(t, byHand, byHandConfig); got != "null" {
		t.Fatalf("seed %s registered with taints %s, want none", byHand, got)
	}
	for _, seed := range l.seeds {
		markReady(t, seed)
	}

	out := onGardener(t, "cordon", operated)
	if want := "gardenlet.seedmanagement.gardener.cloud/" + operated + " cordoned\nseed/" + operated + " cordoned\n"; out != want {
		t.Errorf("cordon printed %q, want %q", out, want)
	}
	r := runGraftctl(t.Context(), t, "--api=core.gardener.cloud", "taint", "seed", byHand, "maintenance=now:NoSchedule")
	if r.err != nil || r.out != "seed/"+byHand+" tainted\n" ||
		!strings.Contains(r.errOut, "Warning: seed(s) "+byHand+": no ManagedSeed or Gardenlet in namespace garden holds their gardenlet configuration") {
		t.Errorf("taint of seed %s: %v\nstdout %q\nstderr %q\nwant the Seed tainted and the warning", byHand, r.err, r.out, r.errOut)
	}
	// A taint written onto operated's Seed alone, as kubectl would.
	patch := []byte(`{"spec":{"taints":[{"key":"seed.gardener.cloud/unschedulable"},{"key":"seed-only"}]}}`)
	if _, err := dynamicClient(t).Resource(seeds).Patch(t.Context(), operated, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	get := runGraftctl(t.Context(), t, "--api=core.gardener.cloud", "get", "seeds", operated, byHand)
	if !strings.Contains(get.out, "seed.gardener.cloud/unschedulable:NoSchedule,seed-only:NoSchedule* ") ||
		!strings.Contains(get.errOut, "*: on the Seed but not in its gardenlet configuration ("+operated+")") {
		t.Errorf("get seeds printed\n%s%s\nwant seed-only marked as a taint gardenlet removes", get.out, get.errOut)
	}
	if cfgTaints, _, _ := unstructured.NestedSlice(deployedConfig(), "seedConfig", "spec", "taints"); jsonOf(cfgTaints) != `[{"key":"seed.gardener.cloud/unschedulable"}]` {
		t.Errorf("the Gardenlet's seedConfig.spec.taints are %s, want the cordon taint", jsonOf(cfgTaints))
	}

	// gardenlet restarts (a rollout, a node drain, an upgrade).
	if got := restartGardenlet(t, operated, deployedConfig()); got != `[{"key":"seed.gardener.cloud/unschedulable"}]` {
		t.Errorf("after gardenlet's restart seed %s has taints %s, want the cordon back and seed-only gone", operated, got)
	}
	if got := restartGardenlet(t, byHand, byHandConfig); got != "null" {
		t.Errorf("after gardenlet's restart seed %s has taints %s, want graftctl's taint gone, as graftctl warned", byHand, got)
	}
}
