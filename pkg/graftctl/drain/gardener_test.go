package drain

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/graft-dev/graft/pkg/controlplane/gardenerlandscape"
	"github.com/graft-dev/graft/pkg/coretest"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/graft-dev/client-go/clientset/versioned/fake"
	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/descheduler"
	"github.com/graft-dev/graft/pkg/garden"
	"github.com/graft-dev/graft/pkg/graftctl/factory"
	"github.com/graft-dev/graft/pkg/graftctl/seedcmd"
)

func runOnGardener(newCmd func(factory.Factory, genericiooptions.IOStreams) *cobra.Command, client *dynamicfake.FakeDynamicClient, args ...string) (string, error) {
	var out bytes.Buffer
	cmd := newCmd(&factory.Static{API: garden.Gardener, Dynamic: client}, genericiooptions.IOStreams{In: &bytes.Buffer{}, Out: &out, ErrOut: &out})
	cmd.SetArgs(args)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err := cmd.ExecuteContext(context.Background())
	return out.String(), err
}

// seedPatch is the last patch of a Seed.
func seedPatch(t *testing.T, client *dynamicfake.FakeDynamicClient) string {
	t.Helper()
	var last string
	for _, a := range client.Actions() {
		if p, ok := a.(clienttesting.PatchAction); ok && p.GetResource().Resource == "seeds" {
			last = string(p.GetPatch())
		}
	}
	return last
}

// warning is what graftctl says of a seed whose gardenlet configuration the
// garden does not hold.
func warning(seed string) string {
	var out bytes.Buffer
	seedcmd.WarnPassing(&out, []string{seed})
	return out.String()
}

// TestCordonAndUncordonOnGardener: without a ManagedSeed or Gardenlet, the
// Seed alone is written, with the warning.
func TestCordonAndUncordonOnGardener(t *testing.T) {
	client := coretest.FakeGardener(gardenerlandscape.MustSeed(coretest.MakeSeed("a").ResourceVersion("4").Taint("other", nil, "").Obj(), "dns"), gardenerlandscape.MustSeed(coretest.MakeSeed("b").ResourceVersion("9").Taint("seed.gardener.cloud/unschedulable", nil, "").Obj(), "dns"))
	out, err := runOnGardener(NewCordonCommand, client, "a", "b")
	if err != nil {
		t.Fatal(err)
	}
	if want := "seed/a cordoned\nseed/b already cordoned\n" + warning("a"); out != want {
		t.Errorf("cordon output %q, want %q", out, want)
	}
	want := `{"metadata":{"resourceVersion":"4"},"spec":{"taints":[{"key":"other"},{"key":"seed.gardener.cloud/unschedulable"}]}}`
	if got := seedPatch(t, client); got != want {
		t.Errorf("cordon patch %s, want %s", got, want)
	}

	client = coretest.FakeGardener(gardenerlandscape.MustSeed(coretest.MakeSeed("b").ResourceVersion("9").Taint("seed.gardener.cloud/unschedulable", nil, "").Obj(), "dns"))
	out, err = runOnGardener(NewUncordonCommand, client, "b")
	if err != nil {
		t.Fatal(err)
	}
	if want := "seed/b uncordoned\n" + warning("b"); out != want {
		t.Errorf("uncordon output %q, want %q", out, want)
	}
	if got, want := seedPatch(t, client), `{"metadata":{"resourceVersion":"9"},"spec":{"taints":null}}`; got != want {
		t.Errorf("uncordon patch %s, want %s", got, want)
	}
}

func TestDrainOnGardenerWithoutMigrateIsRefused(t *testing.T) {
	client := coretest.FakeGardener(gardenerlandscape.MustSeed(coretest.MakeSeed("a").ResourceVersion("4").Obj(), "dns"))
	_, err := runOnGardener(NewCommand, client, "a")
	for _, want := range []string{"on a Gardener garden (core.gardener.cloud) drain moves shoots by migrating their control planes: graft-descheduler makes the migrations where it runs",
		"'graftctl drain a --dry-run'", "'graftctl drain a --migrate'"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("drain on Gardener: %v, want a refusal saying %q", err, want)
		}
	}
	if n := len(client.Actions()); n != 0 {
		t.Errorf("%d requests sent, want none", n)
	}
}

func TestMigrateOnGraftsAPIIsRefused(t *testing.T) {
	graft := fake.NewSimpleClientset(landscapeObjects()...)
	_, _, err := run(context.Background(), graft, kubefake.NewSimpleClientset(), "a", "--migrate")
	if err == nil || !strings.Contains(err.Error(), "--migrate works on a Gardener garden (core.gardener.cloud) only") ||
		!strings.Contains(err.Error(), "run 'graftctl drain a' without --migrate") {
		t.Errorf("drain --migrate on graft's API: %v, want a refusal", err)
	}
	if n := len(graft.Actions()); n != 0 {
		t.Errorf("%d requests sent, want none", n)
	}
}

func TestMigrationFlagsAreChecked(t *testing.T) {
	client := migrationLandscape(t)
	for flag, want := range map[string]string{
		"--migration-rate=-1": "--migration-rate must not be negative",
		"--migration-burst=0": "--migration-burst must be at least 1",
		"--max-in-flight=-1":  "--max-in-flight must not be negative",
	} {
		_, err := runMigration(t, client, "a", "--migrate", flag)
		if err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", flag, err, want)
		}
	}
	if n := len(client.Actions()); n != 0 {
		t.Errorf("%d requests sent, want none", n)
	}
}

// migrationSeed is a ready Gardener seed labelled role=name, with backup
// (and its BackupBucketsReady condition) when backup is set, in the internal
// DNS domain internal.example.
func migrationSeed(t *testing.T, name string, backup bool) *unstructured.Unstructured {
	seed := coretest.MakeSeed(name).Labels(map[string]string{"role": name}).Obj()
	if backup {
		seed.Spec.Backup = &corev1alpha1.SeedBackup{Provider: "aws"}
		seed.Status.Conditions = append(seed.Status.Conditions, corev1alpha1.Condition{Type: corev1alpha1.SeedBackupBucketsReady, Status: corev1alpha1.ConditionTrue})
	}
	seed.ResourceVersion = "1"
	u := coretest.AsGardener(seed, "Seed")
	_ = unstructured.SetNestedField(u.Object, "internal.example", "spec", "dns", "internal", "domain")
	return u
}

// selecting returns a Gardener shoot on seed a that may go only to seeds
// labelled role=role.
func selecting(t *testing.T, name, role string) *unstructured.Unstructured {
	shoot := coretest.MakeShoot("ns", name).Seed("a").Obj()
	shoot.Spec.SeedSelector = &corev1alpha1.SeedSelector{LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{"role": role}}}
	shoot.ResourceVersion = "7"
	return coretest.AsGardener(shoot, "Shoot")
}

// migrationLandscape: seed a and b with backup, c without; on a, shoots good
// and late (may go to b), nobackup (may go to c only) and nowhere (fits no
// seed). good's tenant asks for a live migration.
func migrationLandscape(t *testing.T) *dynamicfake.FakeDynamicClient {
	good := selecting(t, "good", "b")
	good.SetAnnotations(map[string]string{corev1alpha1.AnnotationLiveMigrate: "true"})
	return coretest.FakeGardener(
		coretest.AsGardener(coretest.MakeCloudProfile("aws").Regions("eu-west-1").Obj(), "CloudProfile"),
		migrationSeed(t, "a", true), migrationSeed(t, "b", true), migrationSeed(t, "c", false),
		coretest.GardenerSeedConfig("ManagedSeed", "a", "2"),
		good, selecting(t, "late", "b"), selecting(t, "nobackup", "c"), selecting(t, "nowhere", "none"))
}

func runMigration(t *testing.T, client *dynamicfake.FakeDynamicClient, args ...string) (string, error) {
	return runMigrationWith(t, client, kubefake.NewSimpleClientset(), args...)
}

func runMigrationWith(t *testing.T, client *dynamicfake.FakeDynamicClient, kube *kubefake.Clientset, args ...string) (string, error) {
	var out bytes.Buffer
	f := &factory.Static{API: garden.Gardener, Dynamic: client, Kube: kube}
	cmd := NewCommand(f, genericiooptions.IOStreams{In: &bytes.Buffer{}, Out: &out, ErrOut: &out})
	cmd.SetArgs(append([]string{"--strategy=SameRegion", "--migration-rate=0"}, args...))
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err := cmd.ExecuteContext(context.Background())
	return out.String(), err
}

// TestMigrationDryRunOnGardener: without graft-descheduler, a dry run of
// a drain on Gardener prints the drain's plan, which graft-descheduler's
// engine computes over a copy: good now, late once good's move (same
// project) landed, the others held; it writes nothing.
func TestMigrationDryRunOnGardener(t *testing.T) {
	client := migrationLandscape(t)
	out, err := runMigration(t, client, "a", "--dry-run")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"managedseed.seedmanagement.gardener.cloud/a drained (dry run)\nseed/a cordoned (dry run)\nseed/a marked for eviction (seed.gardener.cloud/unschedulable:NoExecute) (dry run)\n",
		"\nns/good      b            now ",
		"\nns/late      b            20",
		"\nns/nobackup  <none>       -                     classic  no other seed fits: 0/3 seeds fit: current seed (1), shoot seed selector (1), migration refused by Gardener (1); destination seed c has no spec.backup: ",
		"\n4 shoot(s): 1 move now, 1 later, 2 cannot move, 0 stay on seed/a (dry run)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run printed\n%s\nwant it to contain %q", out, want)
		}
	}
	for _, a := range client.Actions() {
		if v := a.GetVerb(); v != "get" && v != "list" {
			t.Errorf("the dry run sent a %s of %s", v, a.GetResource().Resource)
		}
	}
}

func TestMigrateOnGardener(t *testing.T) {
	client := migrationLandscape(t)
	var bindings []string
	// The fake stands in for gardener-apiserver's admission: it refuses the
	// binding of late as the ShootValidator does once seed b lost its backup
	// after graftctl read it, and records the others. The seed without
	// backup is never asked for: the algorithm knows Gardener's rules.
	client.PrependReactor("patch", "shoots", func(a clienttesting.Action) (bool, runtime.Object, error) {
		p := a.(clienttesting.PatchAction)
		var patch struct {
			Metadata struct {
				ResourceVersion string
				Annotations     map[string]string
			} `json:"metadata"`
			Spec struct{ SeedName string } `json:"spec"`
		}
		_ = json.Unmarshal(p.GetPatch(), &patch)
		bindings = append(bindings, fmt.Sprintf("%s %s->%s rv=%s live=%s", p.GetSubresource(), p.GetName(), patch.Spec.SeedName, patch.Metadata.ResourceVersion, patch.Metadata.Annotations[corev1alpha1.AnnotationLiveMigrate]))
		if p.GetName() == "late" {
			return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "core.gardener.cloud", Resource: "shoots"}, p.GetName(),
				errors.New(`cannot change seed name because backup is not configured for seed "b"`))
		}
		return false, nil, nil
	})
	out, err := runMigration(t, client, "a", "--migrate", "--wait=false")
	t.Logf("drain --migrate printed:\n%s", out)
	if err == nil || !strings.Contains(err.Error(), "seed a not drained: 1/4 shoots moved, 3 left (2 fit no other seed, 1 refused by Gardener;") {
		t.Errorf("drain --migrate: %v, want a non-zero exit naming what is left", err)
	}
	for _, want := range []string{
		"seed/a cordoned\n",
		"4 shoot(s) to migrate off seed/a\n",
		"shoot/ns/good moved to seed/b\n1/4 shoots moved\n",
		"shoot/ns/late held (refused): NoExecuteTaints wants the shoot off seed a (seed a has NoExecute taint seed.gardener.cloud/unschedulable:NoExecute that the shoot does not tolerate), but Gardener refused its migration: destination seed b has no spec.backup: Gardener migrates a control plane only between seeds that both have backup; configure backup on seed b, or cordon seed b so that another seed is chosen\n",
		"shoot/ns/nobackup held (skipped_no_fit): NoExecuteTaints wants the shoot off seed a (seed a has NoExecute taint seed.gardener.cloud/unschedulable:NoExecute that the shoot does not tolerate), but no other seed fits: 0/3 seeds fit: current seed (1), shoot seed selector (1), migration refused by Gardener (1); destination seed c has no spec.backup",
		"shoot/ns/nowhere held (skipped_no_fit): ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("drain --migrate printed\n%s\nwant it to contain %q", out, want)
		}
	}
	// The tenant's live-migrate "true" on good is rewritten: graft's
	// migration is classic. Gardener refuses late's binding each time the
	// descheduler's engine tries it; the drain gives up on it.
	if len(bindings) < 2 || bindings[0] != "binding good->b rv=7 live=false" {
		t.Errorf("updates sent %q, want good's binding first", bindings)
	}
	for _, b := range bindings[1:] {
		if b != "binding late->b rv=7 live=false" {
			t.Errorf("updates sent %q, want only late's after good's", bindings)
		}
	}
	if got := seedPatch(t, client); !strings.Contains(got, `"spec":{"taints":[{"key":"seed.gardener.cloud/unschedulable"}]}`) ||
		!strings.Contains(got, `{\"key\":\"seed.gardener.cloud/unschedulable\",\"effect\":\"NoExecute\",\"timeAdded\":`) {
		t.Errorf("drain patch %s, want Gardener's taint and the NoExecute effect in graft.dev/taints", got)
	}
}

// TestMigrationIsRateLimited: with --migration-rate=20 and a burst of 1, the
// third of three bindings cannot be sent before two intervals of 50 ms have
// passed since the first.
func TestMigrationIsRateLimited(t *testing.T) {
	client := coretest.FakeGardener(
		coretest.AsGardener(coretest.MakeCloudProfile("aws").Regions("eu-west-1").Obj(), "CloudProfile"),
		migrationSeed(t, "a", true), migrationSeed(t, "b", true),
		selecting(t, "s1", "b"), selecting(t, "s2", "b"), selecting(t, "s3", "b"))
	var sent []time.Time
	client.PrependReactor("patch", "shoots", func(clienttesting.Action) (bool, runtime.Object, error) {
		sent = append(sent, time.Now())
		return false, nil, nil
	})
	out, err := runMigration(t, client, "a", "--migrate", "--wait=false", "--migration-rate=20", "--migration-burst=1")
	if err != nil {
		t.Fatalf("drain --migrate: %v\n%s", err, out)
	}
	if !strings.Contains(out, "3/3 shoots moved\nseed/a drained: gardenlet now migrates 3 control plane(s)") {
		t.Errorf("drain --migrate printed\n%s", out)
	}
	if len(sent) != 3 {
		t.Fatalf("%d bindings sent, want 3", len(sent))
	}
	if gap := sent[2].Sub(sent[0]); gap < 100*time.Millisecond-5*time.Millisecond {
		t.Errorf("three bindings within %s; at 20 per second with a burst of 1 they take at least 100ms", gap)
	}
}

// gardenletStandIn stands in for gardenlet's side of a control-plane
// migration: every delay it sets status.seedName of each shoot in flight to
// its spec.seedName, except shoots hold reports true for. It also records the
// most migrations it saw in flight at once.
type gardenletStandIn struct {
	client *dynamicfake.FakeDynamicClient
	hold   func(name string) bool
	mu     sync.Mutex
	most   int
}

func (g *gardenletStandIn) run(ctx context.Context, delay time.Duration) {
	shoots := g.client.Resource(coretest.GardenerResource("shoots")).Namespace("ns")
	for tick := time.NewTicker(delay); ; {
		select {
		case <-ctx.Done():
			tick.Stop()
			return
		case <-tick.C:
		}
		list, err := shoots.List(ctx, metav1.ListOptions{})
		if err != nil {
			continue
		}
		n := 0
		for i := range list.Items {
			s := &list.Items[i]
			spec, _, _ := unstructured.NestedString(s.Object, "spec", "seedName")
			status, _, _ := unstructured.NestedString(s.Object, "status", "seedName")
			if spec == "" || status == "" || spec == status {
				continue
			}
			n++
			if g.hold(s.GetName()) {
				continue
			}
			_ = unstructured.SetNestedField(s.Object, spec, "status", "seedName")
			_, _ = shoots.UpdateStatus(ctx, s, metav1.UpdateOptions{})
		}
		g.mu.Lock()
		g.most = max(g.most, n)
		g.mu.Unlock()
	}
}

// inFlightShoot is a shoot of ns running on seed a that may go to b only,
// or, with from set, one migrating from there to b, started by someone else.
func inFlightShoot(t *testing.T, name, from string) *unstructured.Unstructured {
	shoot := coretest.MakeShoot("ns", name).Seed("a").StatusSeed("a").Obj()
	shoot.Spec.SeedSelector = &corev1alpha1.SeedSelector{LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{"role": "b"}}}
	if from != "" {
		shoot.Spec.SeedName, shoot.Status.SeedName = ptr.To("b"), ptr.To(from)
	}
	shoot.ResourceVersion = "7"
	return coretest.AsGardener(shoot, "Shoot")
}

// publishing returns the Lease of a graft-descheduler that publishes its
// configuration, edited by edit from the defaults for Gardener.
func publishing(t *testing.T, edit func(*configv1alpha1.DeschedulerConfiguration)) *coordinationv1.Lease {
	t.Helper()
	cfg := &configv1alpha1.DeschedulerConfiguration{API: configv1alpha1.APIGardener}
	edit(cfg)
	cfg.Default()
	value, err := descheduler.EncodeConfiguration(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: corev1alpha1.GardenNamespace, Name: "graft-descheduler",
		Annotations: map[string]string{descheduler.ConfigurationAnnotation: value}}}
}

// TestMigrateWaitsForGardenlet: drain --migrate (--wait by default) runs
// graft-descheduler's engine with the configuration its Lease publishes
// (here a project budget of 10), follows each migration until
// status.seedName names the new seed, never has more than --max-in-flight
// migrations in flight in the garden, counting one started by someone else,
// and says it is drained once all are done.
func TestMigrateWaitsForGardenlet(t *testing.T) {
	client := coretest.FakeGardener(
		coretest.AsGardener(coretest.MakeCloudProfile("aws").Regions("eu-west-1").Obj(), "CloudProfile"),
		migrationSeed(t, "a", true), migrationSeed(t, "b", true), migrationSeed(t, "c", true),
		inFlightShoot(t, "s1", ""), inFlightShoot(t, "s2", ""), inFlightShoot(t, "s3", ""), inFlightShoot(t, "others", "c"))
	kube := kubefake.NewSimpleClientset(publishing(t, func(c *configv1alpha1.DeschedulerConfiguration) {
		c.MaxMovesInFlightPerProject = ptr.To[int32](10)
	}))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	g := &gardenletStandIn{client: client, hold: func(string) bool { return false }}
	go g.run(ctx, 20*time.Millisecond)
	out, err := runMigrationWith(t, client, kube, "a", "--migrate", "--migration-rate=0", "--max-in-flight=2", "--timeout=30s")
	if err != nil {
		t.Fatalf("drain --migrate: %v\n%s", err, out)
	}
	for _, want := range []string{"shoot/ns/s1 migrated to seed/b\n", "shoot/ns/s2 migrated to seed/b\n", "shoot/ns/s3 migrated to seed/b\n",
		"seed/a drained: 3 control plane(s) migrated\n", "held (waiting_for_migrations): "} {
		if !strings.Contains(out, want) {
			t.Errorf("drain printed\n%s\nwant it to contain %q", out, want)
		}
	}
	if strings.Contains(out, "Warning: graft-descheduler") || strings.Contains(out, "waiting_for_project") {
		t.Errorf("drain printed\n%s\nwant it to use the published configuration", out)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.most > 2 {
		t.Errorf("%d migrations were in flight at once, more than --max-in-flight=2", g.most)
	}
}

// TestMigrateTimesOutWhileMoving: a migration gardenlet does not finish
// within --timeout ends the drain with exit code 2 and says what moved and
// what is still moving; stuck moves once s1 (same project) landed.
func TestMigrateTimesOutWhileMoving(t *testing.T) {
	client := coretest.FakeGardener(
		coretest.AsGardener(coretest.MakeCloudProfile("aws").Regions("eu-west-1").Obj(), "CloudProfile"),
		migrationSeed(t, "a", true), migrationSeed(t, "b", true),
		inFlightShoot(t, "s1", ""), inFlightShoot(t, "stuck", ""))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	g := &gardenletStandIn{client: client, hold: func(name string) bool { return name == "stuck" }}
	go g.run(ctx, 20*time.Millisecond)
	out, err := runMigration(t, client, "a", "--migrate", "--migration-rate=0", "--timeout=5s")
	if factory.ExitCode(err) != ExitTimedOut {
		t.Fatalf("drain --migrate: %v (exit code %d), want exit code %d\n%s", err, factory.ExitCode(err), ExitTimedOut, out)
	}
	if !strings.Contains(err.Error(), "timed out after 5s draining seed a: 1 control plane(s) migrated, 1 still moving (ns/stuck to seed/b), 0 not bound yet, 0 left behind") {
		t.Errorf("error %v", err)
	}
	if !strings.Contains(out, "shoot/ns/s1 migrated to seed/b\n") || !strings.Contains(out, "shoot/ns/stuck to seed/b still moving\n") {
		t.Errorf("drain printed\n%s", out)
	}
}
