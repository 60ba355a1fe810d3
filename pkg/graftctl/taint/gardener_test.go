package taint

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/graft-dev/graft/pkg/coretest"

	"k8s.io/cli-runtime/pkg/genericiooptions"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/graft-dev/graft/pkg/garden"
	"github.com/graft-dev/graft/pkg/graftctl/factory"
)

func runOnGardener(client *dynamicfake.FakeDynamicClient, args ...string) (string, error) {
	var out bytes.Buffer
	cmd := NewCommand(&factory.Static{API: garden.Gardener, Dynamic: client}, genericiooptions.IOStreams{In: &bytes.Buffer{}, Out: &out, ErrOut: &out})
	cmd.SetArgs(args)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err := cmd.ExecuteContext(context.Background())
	return out.String(), err
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
	client := coretest.FakeGardener(coretest.GardenerSeed("a", "7", "seed.gardener.cloud/protected"))
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

func TestTaintOnGardenerRefusesOtherEffectsBeforeReading(t *testing.T) {
	for _, arg := range []string{"drain=now:NoExecute", "maybe:PreferNoSchedule", "seed.gardener.cloud/protected:NoExecute-"} {
		client := coretest.FakeGardener(coretest.GardenerSeed("a", "7", "seed.gardener.cloud/protected"))
		_, err := runOnGardener(client, "seed", "a", arg)
		if err == nil || !strings.Contains(err.Error(), "Gardener's seed taints have no effects, every taint keeps new shoots off the seed and none evicts the shoots on it") {
			t.Errorf("taint %s: error %v, want the refusal", arg, err)
		}
		if n := len(client.Actions()); n != 0 {
			t.Errorf("taint %s: %d requests sent, want none", arg, n)
		}
	}
}

func TestTaintOnGardenerClientDryRunSendsNothing(t *testing.T) {
	client := coretest.FakeGardener(coretest.GardenerSeed("a", "7"))
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
