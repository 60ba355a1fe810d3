package taint

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/graft-dev/graft/pkg/controlplane/gardenerlandscape"
	"github.com/graft-dev/graft/pkg/coretest"

	"k8s.io/cli-runtime/pkg/genericiooptions"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/graft-dev/graft/pkg/garden"
	"github.com/graft-dev/graft/pkg/graftctl/factory"
)

func runOnGardener(client *dynamicfake.FakeDynamicClient, args ...string) (string, error) {
	out, _, err := runOnGardenerErr(client, args...)
	return out, err
}

func runOnGardenerErr(client *dynamicfake.FakeDynamicClient, args ...string) (stdout, stderr string, _ error) {
	var out, errOut bytes.Buffer
	cmd := NewCommand(&factory.Static{API: garden.Gardener, Dynamic: client}, genericiooptions.IOStreams{In: &bytes.Buffer{}, Out: &out, ErrOut: &errOut})
	cmd.SetArgs(args)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err := cmd.ExecuteContext(context.Background())
	return out.String(), errOut.String(), err
}

// passing is the start of the warning for a seed whose gardenlet
// configuration the garden does not hold.
const passing = "Warning: seed(s) a: no ManagedSeed or Gardenlet in namespace garden holds their gardenlet configuration, so the change is made to the Seed alone and lasts only until gardenlet next starts"

func TestTaintOnGardenerWithoutConfigurationWarnsOnce(t *testing.T) {
	client := coretest.FakeGardener(gardenerlandscape.MustSeed(coretest.MakeSeed("a").ResourceVersion("7").Obj(), "dns"), gardenerlandscape.MustSeed(coretest.MakeSeed("b").ResourceVersion("8").Obj(), "dns"))
	out, errOut, err := runOnGardenerErr(client, "seed", "a", "b", "k=v:NoSchedule")
	if err != nil {
		t.Fatal(err)
	}
	if out != "seed/a tainted\nseed/b tainted\n" {
		t.Errorf("output %q", out)
	}
	if want := strings.Replace(passing, "seed(s) a:", "seed(s) a, b:", 1); !strings.HasPrefix(errOut, want) || strings.Count(errOut, "Warning:") != 1 {
		t.Errorf("stderr %q, want one warning starting %q", errOut, want)
	}
}

// A PreferNoSchedule taint lives in the Seed's annotation, which gardenlet
// keeps: no warning, where a NoExecute taint on the same seed gets one.
func TestPreferNoScheduleOnGardenerLastsWithoutConfiguration(t *testing.T) {
	client := coretest.FakeGardener(gardenerlandscape.MustSeed(coretest.MakeSeed("a").ResourceVersion("7").Obj(), "dns"))
	out, errOut, err := runOnGardenerErr(client, "seed", "a", "soft:PreferNoSchedule")
	if err != nil || out != "seed/a tainted\n" || errOut != "" {
		t.Errorf("PreferNoSchedule: stdout %q, stderr %q, error %v; want no warning", out, errOut, err)
	}
	_, errOut, err = runOnGardenerErr(client, "seed", "a", "drain:NoExecute")
	if err != nil || !strings.HasPrefix(errOut, passing) {
		t.Errorf("NoExecute: stderr %q, error %v; want the warning", errOut, err)
	}
}

// TestTaintOnGardenerWritesTheSeedConfiguration: a seed whose gardenlet
// configuration is a Gardenlet or ManagedSeed of the garden gets the taint
// there (only seedConfig.spec.taints, preconditioned) and on the Seed, which
// may already have it, and no warning.
func TestTaintOnGardenerWritesTheSeedConfiguration(t *testing.T) {
	for _, tc := range []struct {
		kind, object, path string
	}{
		{"Gardenlet", "gardenlet.seedmanagement.gardener.cloud/a", `{"spec":{"config":{"seedConfig":{"spec":{"taints":[{"key":"k","value":"v"},{"key":"seed.gardener.cloud/protected"}]}}}}}`},
		{"ManagedSeed", "managedseed.seedmanagement.gardener.cloud/a", `{"spec":{"gardenlet":{"config":{"seedConfig":{"spec":{"taints":[{"key":"k","value":"v"},{"key":"seed.gardener.cloud/protected"}]}}}}}}`},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			seed := gardenerlandscape.MustSeed(coretest.MakeSeed("a").ResourceVersion("7").Taint("seed.gardener.cloud/protected", nil, "").Obj(), "dns")
			seed.Object["spec"].(map[string]any)["taints"] = []any{map[string]any{"key": "seed.gardener.cloud/protected"}, map[string]any{"key": "k", "value": "v"}}
			client := coretest.FakeGardener(seed, coretest.GardenerSeedConfig(tc.kind, "a", "3", "seed.gardener.cloud/protected"))
			out, errOut, err := runOnGardenerErr(client, "seed", "a", "k=v:NoSchedule")
			if err != nil {
				t.Fatal(err)
			}
			if want := tc.object + " tainted\nseed/a tainted\n"; out != want || errOut != "" {
				t.Errorf("stdout %q, stderr %q; want stdout %q and no warning", out, errOut, want)
			}
			patches := gardenerPatches(client)
			wantConfig := `{"metadata":{"resourceVersion":"3"},` + tc.path[1:]
			if len(patches) != 2 || patches[0] != wantConfig {
				t.Fatalf("patches %q, want the configuration's %s first, then the Seed's", patches, wantConfig)
			}
			if want := `{"metadata":{"resourceVersion":"7"},"spec":{"taints":[{"key":"k","value":"v"},{"key":"seed.gardener.cloud/protected"}]}}`; patches[1] != want {
				t.Errorf("seed patch %s, want %s", patches[1], want)
			}
		})
	}
}

func gardenerPatches(client *dynamicfake.FakeDynamicClient) []string {
	var out []string
	for _, a := range client.Actions() {
		if p, ok := a.(clienttesting.PatchAction); ok {
			out = append(out, string(p.GetPatch()))
		}
	}
	return out
}

func TestTaintOnGardenerWritesKeyAndValueWithResourceVersion(t *testing.T) {
	client := coretest.FakeGardener(gardenerlandscape.MustSeed(coretest.MakeSeed("a").ResourceVersion("7").Taint("seed.gardener.cloud/protected", nil, "").Obj(), "dns"))
	out, err := runOnGardener(client, "seed", "a", "maintenance=soon:NoSchedule")
	if err != nil {
		t.Fatal(err)
	}
	if out != "seed/a tainted\n" {
		t.Errorf("output %q", out)
	}
	patches := gardenerPatches(client)
	want := `{"metadata":{"resourceVersion":"7"},"spec":{"taints":[{"key":"maintenance","value":"soon"},{"key":"seed.gardener.cloud/protected"}]}}`
	if len(patches) != 1 || patches[0] != want {
		t.Errorf("patches %q, want [%s]", patches, want)
	}
}

// Every effect can be set on Gardener: the configuration gets the keys and
// values that keep shoots off, the Seed those and the annotation with their
// effects; a PreferNoSchedule taint only the annotation. Removing a taint by
// its effect finds it through the annotation.
func TestTaintOnGardenerWritesEffectsIntoTheAnnotation(t *testing.T) {
	seed := gardenerlandscape.MustSeed(coretest.MakeSeed("a").ResourceVersion("7").Taint("seed.gardener.cloud/protected", nil, "").Obj(), "dns")
	client := coretest.FakeGardener(seed, coretest.GardenerSeedConfig("ManagedSeed", "a", "3", "seed.gardener.cloud/protected"))
	out, err := runOnGardener(client, "seed", "a", "drain=now:NoExecute", "soft:PreferNoSchedule")
	if err != nil {
		t.Fatal(err)
	}
	if want := "managedseed.seedmanagement.gardener.cloud/a tainted\nseed/a tainted\n"; out != want {
		t.Errorf("output %q, want %q", out, want)
	}
	patches := gardenerPatches(client)
	if len(patches) != 2 {
		t.Fatalf("patches %q, want the configuration's and the Seed's", patches)
	}
	if want := `{"metadata":{"resourceVersion":"3"},"spec":{"gardenlet":{"config":{"seedConfig":{"spec":{"taints":[{"key":"drain","value":"now"},{"key":"seed.gardener.cloud/protected"}]}}}}}}`; patches[0] != want {
		t.Errorf("configuration patch %s, want %s", patches[0], want)
	}
	for _, want := range []string{
		`"spec":{"taints":[{"key":"drain","value":"now"},{"key":"seed.gardener.cloud/protected"}]}`,
		`{\"key\":\"drain\",\"value\":\"now\",\"effect\":\"NoExecute\",\"timeAdded\":`,
		`{\"key\":\"soft\",\"effect\":\"PreferNoSchedule\"}`,
	} {
		if !strings.Contains(patches[1], want) {
			t.Errorf("seed patch %s lacks %s", patches[1], want)
		}
	}

	// Read back, the seed has every effect; removing the NoExecute taint by
	// its effect removes it from the configuration, the Seed and the annotation.
	live, err := garden.NewGardener(client).GetSeed(context.Background(), "a")
	if err != nil {
		t.Fatal(err)
	}
	effects := map[string]string{}
	for _, taint := range live.Spec.Taints {
		effects[taint.Key] = string(taint.Effect)
	}
	if effects["drain"] != "NoExecute" || effects["soft"] != "PreferNoSchedule" || effects["seed.gardener.cloud/protected"] != "NoSchedule" {
		t.Errorf("taints read back %+v", live.Spec.Taints)
	}
	client.ClearActions()
	if _, err := runOnGardener(client, "seed", "a", "drain:NoExecute-"); err != nil {
		t.Fatal(err)
	}
	patches = gardenerPatches(client)
	if len(patches) != 2 || strings.Contains(patches[0], "drain") || strings.Contains(patches[1], "drain") || !strings.Contains(patches[1], "soft") {
		t.Errorf("patches after removing drain:NoExecute %q", patches)
	}
}

func TestTaintOnGardenerClientDryRunSendsNothing(t *testing.T) {
	client := coretest.FakeGardener(gardenerlandscape.MustSeed(coretest.MakeSeed("a").ResourceVersion("7").Obj(), "dns"))
	out, err := runOnGardener(client, "seed", "a", "k:NoSchedule", "--dry-run")
	if err != nil {
		t.Fatal(err)
	}
	if out != "seed/a tainted (dry run)\n" {
		t.Errorf("output %q", out)
	}
	if p := gardenerPatches(client); len(p) != 0 {
		t.Errorf("patches sent: %q", p)
	}
}
