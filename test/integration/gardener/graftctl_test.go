//go:build gardener

package gardener

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/graft-dev/graft/pkg/graftctl"
	"github.com/graft-dev/graft/test/framework"
)

// graftctlResult is what one graftctl invocation printed and whether it failed.
type graftctlResult struct {
	out, errOut string
	err         error
}

// runGraftctl runs graftctl against the garden as the binary does, errors
// printed by graftctl.PrintError.
func runGraftctl(ctx context.Context, t *testing.T, args ...string) graftctlResult {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := graftctl.NewGraftctlCommand(genericiooptions.IOStreams{In: &bytes.Buffer{}, Out: &out, ErrOut: &errOut})
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs(append([]string{"--kubeconfig", framework.Shared(t).Kubeconfig}, args...))
	err := cmd.ExecuteContext(ctx)
	if err != nil {
		graftctl.PrintError(&errOut, err)
	}
	return graftctlResult{out: out.String(), errOut: errOut.String(), err: err}
}

// onGardener runs graftctl with --api=core.gardener.cloud and fails the test
// when it fails. The garden also serves graft's CRDs, so discovery alone
// would pick graft's API.
func onGardener(t *testing.T, args ...string) string {
	t.Helper()
	r := runGraftctl(t.Context(), t, append([]string{"--api=core.gardener.cloud"}, args...)...)
	if r.err != nil {
		t.Fatalf("graftctl %q: %v\nstdout:\n%s\nstderr:\n%s", args, r.err, r.out, r.errOut)
	}
	return r.out
}

// markReady gives a seed the status gardenlet would report for a healthy
// seed: a succeeded reconciliation and GardenletReady True, and
// BackupBucketsReady True when it has backup.
func markReady(t *testing.T, name string) {
	t.Helper()
	if err := creator(t).MarkReady(t.Context(), name, -1); err != nil {
		t.Fatalf("marking seed %s ready: %v", name, err)
	}
}

// landscapeLabel marks the seeds of a landscape, so that its shoots can
// select them: other tests leave ready seeds of the same region in the garden.
const landscapeLabel = "graft.dev/landscape"

// labelSeeds marks the landscape's seeds with landscapeLabel, for its
// shoots' seedSelector.
func (l *landscape) labelSeeds(t *testing.T) {
	t.Helper()
	for _, seed := range l.seeds {
		patch := []byte(`{"metadata":{"labels":{"` + landscapeLabel + `":"` + l.project + `"}}}`)
		if _, err := dynamicClient(t).Resource(seeds).Patch(t.Context(), seed, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			t.Fatalf("labelling seed %s: %v", seed, err)
		}
	}
}

// createSelectiveShoot marks the landscape's seeds with landscapeLabel and
// creates a shoot without seed that selects them only.
func (l *landscape) createSelectiveShoot(t *testing.T, name string) {
	t.Helper()
	l.labelSeeds(t)
	createObject(t, shoots, l.namespace, l.shootObject(t, l.makeShoot(name).SelectSeeds(map[string]string{landscapeLabel: l.project})))
}

// seedTaints returns the seed's spec.taints as gardener-apiserver stores them.
func seedTaints(t *testing.T, name string) (string, string) {
	t.Helper()
	seed, err := dynamicClient(t).Resource(seeds).Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	taints, _, _ := unstructured.NestedSlice(seed.Object, "spec", "taints")
	data, err := json.Marshal(taints)
	if err != nil {
		t.Fatal(err)
	}
	return string(data), seed.GetResourceVersion()
}

// TestGraftctlReadsGardenersSeedsAndShoots: get and describe read Gardener's
// objects, and discovery prefers graft's API when the garden serves both.
func TestGraftctlReadsGardenersSeedsAndShoots(t *testing.T) {
	l := newLandscape(t, "ctlget", "a", "b")
	markReady(t, l.seeds[0])
	bind(t, l, l.createShoot(t, "bound"), l.seeds[0])
	l.createSelectiveShoot(t, "pending")

	out := onGardener(t, "get", "seeds", l.seeds[0], l.seeds[1])
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || strings.Join(strings.Fields(lines[0]), " ") != "NAME READY PROVIDER REGION USAGE/ALLOCATABLE TAINTS AGE" {
		t.Fatalf("get seeds:\n%s", out)
	}
	if f := strings.Fields(lines[1]); len(f) != 7 || f[0] != l.seeds[0] || f[1] != "True" || f[2] != providerType || f[3] != region || f[4] != "1/-" || f[5] != "<none>" {
		t.Errorf("get seeds row of the ready seed: %q", lines[1])
	}
	if f := strings.Fields(lines[2]); len(f) != 7 || f[0] != l.seeds[1] || f[4] != "0/-" {
		t.Errorf("get seeds row of the other seed: %q", lines[2])
	}

	out = onGardener(t, "get", "shoots", "-n", l.namespace)
	if !strings.Contains(out, "bound     "+l.seeds[0]) || !strings.Contains(out, "pending   <none>") {
		t.Errorf("get shoots:\n%s", out)
	}

	out = onGardener(t, "describe", "shoot", "pending", "-n", l.namespace)
	for _, want := range []string{
		"Namespace:       " + l.namespace + "\n",
		"Seed:            <none>\n",
		"Scheduling (the algorithm run now against ",
		"shoot " + l.namespace + "/pending (strategy SameRegion): scheduled to seed " + l.seeds[0] + "\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("describe lacks %q:\n%s", want, out)
		}
	}
	if notReady := regexp.MustCompile(`\n +` + regexp.QuoteMeta(l.seeds[1]) + ` +Usable: seed has no status.lastOperation yet`); !notReady.MatchString(out) {
		t.Errorf("describe does not say why %s does not fit:\n%s", l.seeds[1], out)
	}

	// Without --api graftctl asks discovery; this garden also serves graft's
	// CRDs, which come first, and graft's API has no seed of that name.
	r := runGraftctl(t.Context(), t, "get", "seeds", l.seeds[0])
	if r.err == nil || !strings.Contains(r.errOut, `seeds.core.graft.dev "`+l.seeds[0]+`" not found`) {
		t.Errorf("get seeds without --api: err %v\nstdout:\n%s\nstderr:\n%s", r.err, r.out, r.errOut)
	}
}

// TestGraftctlTaintsGardenerSeeds: cordon, uncordon and taint write Gardener's
// taints (key and value), --dry-run=server persists nothing, and effects
// Gardener's taints cannot carry are refused without a write.
func TestGraftctlTaintsGardenerSeeds(t *testing.T) {
	l := newLandscape(t, "ctltaint", "a")
	seed := l.seeds[0]

	if out := onGardener(t, "cordon", seed); out != "seed/"+seed+" cordoned\n" {
		t.Errorf("cordon printed %q", out)
	}
	if got, _ := seedTaints(t, seed); got != `[{"key":"seed.gardener.cloud/unschedulable"}]` {
		t.Errorf("taints after cordon: %s", got)
	}
	if out := onGardener(t, "cordon", seed); out != "seed/"+seed+" already cordoned\n" {
		t.Errorf("second cordon printed %q", out)
	}

	if out := onGardener(t, "taint", "seed", seed, "maintenance=planned:NoSchedule"); out != "seed/"+seed+" tainted\n" {
		t.Errorf("taint printed %q", out)
	}
	want := `[{"key":"maintenance","value":"planned"},{"key":"seed.gardener.cloud/unschedulable"}]`
	got, rv := seedTaints(t, seed)
	if got != want {
		t.Errorf("taints after taint: %s, want %s", got, want)
	}
	if out := onGardener(t, "get", "seed", seed); !strings.Contains(out, "maintenance=planned:NoSchedule,seed.gardener.cloud/unschedulable:NoSchedule") {
		t.Errorf("get seed shows the taints as:\n%s", out)
	}

	if out := onGardener(t, "taint", "seed", seed, "maintenance-", "--dry-run=server"); out != "seed/"+seed+" untainted (server dry run)\n" {
		t.Errorf("taint --dry-run=server printed %q", out)
	}
	r := runGraftctl(t.Context(), t, "--api=core.gardener.cloud", "drain", seed)
	if r.err == nil || !strings.Contains(r.errOut, "drain moves shoots by migrating their control planes: graft-descheduler makes the migrations where it runs") {
		t.Errorf("drain on Gardener: err %v\nstderr:\n%s", r.err, r.errOut)
	}
	if now, nowRV := seedTaints(t, seed); now != want || nowRV != rv {
		t.Errorf("the dry run and the refused drain changed the seed: taints %s (resourceVersion %s), want %s (%s)", now, nowRV, want, rv)
	}

	// Every effect: NoExecute in spec.taints and the annotation, which keeps
	// its effect and time; PreferNoSchedule in the annotation alone, where
	// Gardener's scheduler and admission do not look.
	if out := onGardener(t, "taint", "seed", seed, "evict=now:NoExecute", "maybe:PreferNoSchedule"); out != "seed/"+seed+" tainted\n" {
		t.Errorf("taint with effects printed %q", out)
	}
	if got, _ := seedTaints(t, seed); got != `[{"key":"evict","value":"now"},{"key":"maintenance","value":"planned"},{"key":"seed.gardener.cloud/unschedulable"}]` {
		t.Errorf("spec.taints after NoExecute and PreferNoSchedule: %s", got)
	}
	if out := onGardener(t, "get", "seed", seed); !strings.Contains(out, "evict=now:NoExecute,maintenance=planned:NoSchedule,seed.gardener.cloud/unschedulable:NoSchedule,maybe:PreferNoSchedule") {
		t.Errorf("get seed shows the taints as:\n%s", out)
	}
	if out := onGardener(t, "describe", "seed", seed); !strings.Contains(out, "evict=now:NoExecute (added ") || !strings.Contains(out, "maybe:PreferNoSchedule\n") {
		t.Errorf("describe seed shows the taints as:\n%s", out)
	}
	if out := onGardener(t, "taint", "seed", seed, "evict:NoExecute-", "maybe:PreferNoSchedule-"); out != "seed/"+seed+" untainted\n" {
		t.Errorf("removing the taints with effects printed %q", out)
	}
	live, err := dynamicClient(t).Resource(seeds).Get(t.Context(), seed, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if a, found := live.GetAnnotations()["graft.dev/taints"]; found {
		t.Errorf("annotation graft.dev/taints left after the taints with effects went: %s", a)
	}

	if out := onGardener(t, "uncordon", seed); out != "seed/"+seed+" uncordoned\n" {
		t.Errorf("uncordon printed %q", out)
	}
	if out := onGardener(t, "taint", "seed", seed, "maintenance-"); out != "seed/"+seed+" untainted\n" {
		t.Errorf("taint removal printed %q", out)
	}
	if got, _ := seedTaints(t, seed); got != "null" {
		t.Errorf("taints after uncordon and removal: %s, want none", got)
	}
}

// TestSimulateFromClusterAgreesWithGraftScheduler: asked while the shoots
// wait, simulate --from-cluster names the seed graft-scheduler then binds
// each of them to, and says that no seed fits the shoot graft-scheduler
// leaves Create/Pending. Of two ready seeds one is tainted, so every
// placement is one the algorithm must work out, and none depends on the order
// in which the scheduler takes the shoots.
func TestSimulateFromClusterAgreesWithGraftScheduler(t *testing.T) {
	l := newLandscape(t, "agree", "free", "tainted")
	free, tainted := l.seeds[0], l.seeds[1]
	markSeedReady(t, free, 5, nil)
	markSeedReady(t, tainted, 10, []any{map[string]any{"key": "example.com/maintenance"}})
	placed := []string{"one", "two"}
	for _, name := range placed {
		l.createGraftShoot(t, name)
	}
	l.createGraftShootSelecting(t, "nowhere", "none-"+l.project)

	type result struct{ Seed, Error string }
	predicted := map[string]result{}
	for _, line := range strings.Split(strings.TrimSpace(onGardener(t, "simulate", "--from-cluster", "-o", "json")), "\n") {
		var res struct{ Shoot, Seed, Error string }
		if err := json.Unmarshal([]byte(line), &res); err != nil {
			t.Fatalf("simulate printed %q: %v", line, err)
		}
		predicted[res.Shoot] = result{res.Seed, res.Error}
	}

	startGraftScheduler(t, "graft-scheduler-agree", l.schedulerName())
	for _, name := range placed {
		bound := waitForShoot(t, l, name, "spec.seedName set", func(s *unstructured.Unstructured) bool {
			_, found, _ := unstructured.NestedString(s.Object, "spec", "seedName")
			return found
		})
		seed, _, _ := unstructured.NestedString(bound.Object, "spec", "seedName")
		if p, ok := predicted[l.namespace+"/"+name]; !ok || p.Seed != seed || p.Error != "" {
			t.Errorf("shoot %s: graft-scheduler bound it to %s, simulate --from-cluster said %+v (found: %t)", name, seed, p, ok)
		}
		if seed != free {
			t.Errorf("shoot %s bound to %s, want %s (%s is tainted)", name, seed, free, tainted)
		}
	}
	waitForShoot(t, l, "nowhere", "lastOperation Create/Pending", func(s *unstructured.Unstructured) bool {
		state, _, _ := unstructured.NestedString(s.Object, "status", "lastOperation", "state")
		return state == "Pending"
	})
	if p, ok := predicted[l.namespace+"/nowhere"]; !ok || p.Seed != "" || p.Error == "" {
		t.Errorf("shoot nowhere: graft-scheduler left it Pending, simulate --from-cluster said %+v (found: %t)", p, ok)
	}
}

// TestSimulateFromGardener: simulate --from-cluster reads Gardener's seeds,
// shoots and cloud profiles and places the pending shoot on the one ready
// seed; a cordoned seed is passed over.
func TestSimulateFromGardener(t *testing.T) {
	l := newLandscape(t, "ctlsim", "a", "b")
	markReady(t, l.seeds[0])
	markReady(t, l.seeds[1])
	onGardener(t, "cordon", l.seeds[0])
	l.createSelectiveShoot(t, "pending")

	out := onGardener(t, "simulate", "--from-cluster", "-o", "json")
	var found bool
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var res struct{ Shoot, Seed, Error string }
		if err := json.Unmarshal([]byte(line), &res); err != nil {
			t.Fatalf("simulate printed %q: %v", line, err)
		}
		if res.Shoot == l.namespace+"/pending" {
			found = true
			if res.Seed != l.seeds[1] || res.Error != "" {
				t.Errorf("pending shoot: seed %q error %q, want %s", res.Seed, res.Error, l.seeds[1])
			}
		}
	}
	if !found {
		t.Errorf("simulate --from-cluster left out %s/pending:\n%s", l.namespace, out)
	}
}
