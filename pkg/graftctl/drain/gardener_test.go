package drain

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/graft-dev/graft/pkg/graftctl/factory"
	"github.com/graft-dev/graft/pkg/graftctl/garden"
	gt "github.com/graft-dev/graft/pkg/graftctl/graftctltest"
)

func runOnGardener(newCmd func(factory.Factory, genericiooptions.IOStreams) *cobra.Command, client *dynamicfake.FakeDynamicClient, args ...string) (string, error) {
	var out bytes.Buffer
	cmd := newCmd(&factory.Static{API: garden.Gardener, Dynamic: client}, genericiooptions.IOStreams{In: &bytes.Buffer{}, Out: &out, ErrOut: &out})
	cmd.SetArgs(args)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err := cmd.ExecuteContext(context.Background())
	return out.String(), err
}

func lastPatch(t *testing.T, client *dynamicfake.FakeDynamicClient) string {
	t.Helper()
	var last string
	for _, a := range client.Actions() {
		if p, ok := a.(clienttesting.PatchAction); ok {
			last = string(p.GetPatch())
		}
	}
	return last
}

func TestCordonAndUncordonOnGardener(t *testing.T) {
	client := gt.FakeGardener(gt.GardenerSeed("a", "4", "other"), gt.GardenerSeed("b", "9", "seed.gardener.cloud/unschedulable"))
	out, err := runOnGardener(NewCordonCommand, client, "a", "b")
	if err != nil {
		t.Fatal(err)
	}
	if out != "seed/a cordoned\nseed/b already cordoned\n" {
		t.Errorf("cordon output %q", out)
	}
	want := `{"metadata":{"resourceVersion":"4"},"spec":{"taints":[{"key":"other"},{"key":"seed.gardener.cloud/unschedulable"}]}}`
	if got := lastPatch(t, client); got != want {
		t.Errorf("cordon patch %s, want %s", got, want)
	}

	client = gt.FakeGardener(gt.GardenerSeed("b", "9", "seed.gardener.cloud/unschedulable"))
	out, err = runOnGardener(NewUncordonCommand, client, "b")
	if err != nil {
		t.Fatal(err)
	}
	if out != "seed/b uncordoned\n" {
		t.Errorf("uncordon output %q", out)
	}
	if got, want := lastPatch(t, client), `{"metadata":{"resourceVersion":"9"},"spec":{"taints":null}}`; got != want {
		t.Errorf("uncordon patch %s, want %s", got, want)
	}
}

func TestDrainOnGardenerIsRefused(t *testing.T) {
	client := gt.FakeGardener(gt.GardenerSeed("a", "4"))
	_, err := runOnGardener(NewCommand, client, "a")
	if err == nil || !strings.Contains(err.Error(), "graftctl drain works on graft's API (core.graft.dev) only") {
		t.Errorf("drain on Gardener: %v, want a refusal", err)
	}
	if n := len(client.Actions()); n != 0 {
		t.Errorf("%d requests sent, want none", n)
	}
}
