//go:build gardener

package gardener

import (
	"context"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"

	"github.com/graft-dev/graft/pkg/algorithm"
	"github.com/graft-dev/graft/pkg/controlplane/gardenerlandscape"
	"github.com/graft-dev/graft/pkg/coretest"
	"github.com/graft-dev/graft/pkg/descheduler"
	"github.com/graft-dev/graft/pkg/garden"
	"github.com/graft-dev/graft/pkg/graftctl/drain"
	"github.com/graft-dev/graft/pkg/graftctl/factory"
	"github.com/graft-dev/graft/pkg/graftctl/livelandscape"
	"github.com/graft-dev/graft/test/framework"
)

// The domains of the migration landscape's seeds: a control plane may move
// between seeds of the same internal domain and keeps its default domain.
const (
	migrationInternalDomain = "internal.migration.graft.example"
	migrationDefaultDomain  = "shoots.migration.graft.example"
)

// migratable gives a seed backup and the migration landscape's domains.
func migratable(s *coretest.SeedWrapper) {
	s.Backup(providerType).InternalDomain(migrationInternalDomain).DefaultDomains(migrationDefaultDomain)
}

// TestDrainMigratesOnGardener: on a Gardener garden `graftctl drain --migrate`
// cordons the seed and moves each shoot's control plane to the seed the
// algorithm chooses, through shoots/binding, choosing only seeds Gardener's
// migration rules accept. The drained seed has backup; every shoot runs on
// it. Of the other seeds one has backup and the same internal and default
// domains, which Gardener accepts, and three Gardener refuses (no backup,
// another internal domain, no default domain for the shoot's domain).
//
// First, for each of them, Gardener's admission answers a dry-run binding as
// algorithm.CheckMigration predicts from the seeds as graft reads them. Then
// the drain: shoot "moves" may go to any seed and the refused seed
// "dom" would be the algorithm's first choice without the rules (the least
// used seed, the name sorting first), yet it goes to "dst" with no refusal;
// "nobackup" may go to the seed without backup only, and stays, the line
// saying why. --dry-run predicts what --dry-run=server gets and neither
// writes; the drain exits non-zero for the shoot left, and Gardener keeps the
// moved shoot's spec until gardenlet has moved its control plane.
func TestDrainMigratesOnGardener(t *testing.T) {
	l := newLandscapeWith(t, "migrate",
		landscapeSeed{"src", migratable},
		landscapeSeed{"dst", migratable},
		landscapeSeed{"nob", func(s *coretest.SeedWrapper) {
			s.InternalDomain(migrationInternalDomain).DefaultDomains(migrationDefaultDomain)
		}},
		landscapeSeed{"dom", func(s *coretest.SeedWrapper) {
			s.Backup(providerType).InternalDomain("other-internal.migration.graft.example").DefaultDomains(migrationDefaultDomain)
		}},
		landscapeSeed{"def", func(s *coretest.SeedWrapper) {
			s.Backup(providerType).InternalDomain(migrationInternalDomain).DefaultDomains("elsewhere.migration.graft.example")
		}},
	)
	src, dst, nob, dom, def := l.seeds[0], l.seeds[1], l.seeds[2], l.seeds[3], l.seeds[4]
	for _, seed := range l.seeds {
		markReady(t, seed)
		patch := []byte(`{"metadata":{"labels":{"` + landscapeLabel + `":"` + l.project + `","graft.dev/role":"` + seed + `"}}}`)
		if _, err := dynamicClient(t).Resource(seeds).Patch(t.Context(), seed, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			t.Fatalf("labelling seed %s: %v", seed, err)
		}
	}
	// Every shoot starts on src, where Gardener gives it a domain under src's
	// default domain. "moves" may go to any seed of the landscape; the others
	// only to the seed named.
	selectors := map[string]map[string]string{
		"moves":    {landscapeLabel: l.project},
		"nobackup": {"graft.dev/role": nob},
		"domain":   {"graft.dev/role": dom},
		"default":  {"graft.dev/role": def},
	}
	for name, selector := range selectors {
		shoot := createObject(t, shoots, l.namespace, l.shootObject(t, l.makeShoot(name).SelectSeeds(selector)))
		bound := bind(t, l, shoot, src)
		if domain, _, _ := unstructured.NestedString(bound.Object, "spec", "dns", "domain"); !strings.HasSuffix(domain, "."+migrationDefaultDomain) {
			t.Fatalf("shoot %s bound to %s has domain %q, want one under %s", name, src, domain, migrationDefaultDomain)
		}
		runsOn(t, bound, src)
	}

	// Gardener's admission and the algorithm's rules agree, seed by seed.
	client, err := garden.New(garden.Gardener, nil, dynamicClient(t))
	if err != nil {
		t.Fatal(err)
	}
	for name, to := range map[string]string{"moves": dst, "nobackup": nob, "domain": dom, "default": def} {
		shoot, err := client.GetShoot(t.Context(), l.namespace, name)
		if err != nil {
			t.Fatal(err)
		}
		from, err1 := client.GetSeed(t.Context(), src)
		dest, err2 := client.GetSeed(t.Context(), to)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		predicted := algorithm.CheckMigration(shoot, from, dest)
		mover := client.Mover()
		_, err = mover.Move(t.Context(), shoot, src, to, nil, "graft-test", true)
		answered := mover.Refusal(err, src, to)
		if err != nil && answered == nil {
			t.Fatalf("dry-run binding of %s to %s: %v", name, to, err)
		}
		if !reflect.DeepEqual(predicted, answered) {
			t.Errorf("shoot %s to seed %s: the algorithm predicts %+v, Gardener's admission answers %+v (%v)", name, to, predicted, answered, err)
		}
	}

	// Without Gardener's rules the algorithm would move "moves" to dom (def,
	// without the shoot's default domain, is out by the scheduler's own
	// domain rule while seeds with it are left).
	live, err := livelandscape.Load(t.Context(), client, framework.Shared(t).KubeClient(), algorithm.Config{Strategy: algorithm.StrategySameRegion}, "")
	if err != nil {
		t.Fatal(err)
	}
	moves, err := client.GetShoot(t.Context(), l.namespace, "moves")
	if err != nil {
		t.Fatal(err)
	}
	in, err := live.Inputs(moves)
	if err != nil {
		t.Fatal(err)
	}
	in.Migration = false
	if first, err := algorithm.FitsElsewhere(moves, live.Snapshot, in, src); err != nil || first != dom {
		t.Fatalf("without Gardener's migration rules the algorithm chooses %q (%v) for shoot moves, want %s, a seed Gardener refuses", first, err, dom)
	}

	before := l.shootVersions(t)
	taints, seedVersion := seedTaints(t, src)
	key := func(name string) string { return "shoot/" + l.namespace + "/" + name }
	// The shoots share a project: the published budget lets them all move.
	lease := publishDeschedulerConfig(t, "graft-descheduler-migrate", func(c *configv1alpha1.DeschedulerConfiguration) {
		c.MaxMovesInFlightPerProject = ptr.To[int32](10)
	})
	args := []string{"drain", src, "--strategy=SameRegion", "--descheduler-lease-name=" + lease}
	predicted := onGardener(t, append(args, "--dry-run")...)
	row := func(name, rest string) *regexp.Regexp {
		return regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(l.namespace+"/"+name) + `\s+` + rest)
	}
	if !strings.Contains(predicted, "seed/"+src+" cordoned (dry run)\n") || !row("moves", regexp.QuoteMeta(dst)+`\s+now\s+classic\s`).MatchString(predicted) ||
		!strings.Contains(predicted, "4 shoot(s): 1 move now, 0 later, 3 cannot move, 0 stay on seed/"+src+" (dry run)\n") {
		t.Errorf("drain --dry-run printed\n%s\nwant the plan: moves to %s now, the others held", predicted, dst)
	}
	// The garden holds other tests' seeds too: the counts before the reason
	// vary, the reason does not.
	for name, why := range map[string]string{
		"nobackup": "destination seed " + nob + " has no spec.backup: Gardener migrates a control plane only between seeds that both have backup; configure backup on seed " + nob + ", or cordon seed " + nob + " so that another seed is chosen",
		"domain":   "seeds " + src + " and " + dom + ` have different internal DNS domains ("` + migrationInternalDomain + `" and "other-internal.migration.graft.example")`,
		"default":  "the shoot's domain lies under \"" + migrationDefaultDomain + "\", a default domain of seed " + src + " that seed " + def + " does not offer",
	} {
		line := row(name, `<none>.*$`).FindString(predicted)
		if !strings.Contains(line, "no other seed fits: ") || !strings.Contains(line, "migration refused by Gardener (1); "+why) {
			t.Errorf("drain --dry-run said of shoot %s %q, want the seed Gardener refuses and why: %q", name, line, why)
		}
	}
	answered := onGardener(t, append(args, "--dry-run=server")...)
	if !strings.Contains(answered, key("moves")+" would move to seed/"+dst+": Gardener accepts the binding\n") ||
		!strings.Contains(answered, "0 planned binding(s) Gardener would refuse (server dry run)\n") {
		t.Errorf("Gardener's admission (--dry-run=server) answered\n%s\nwant it to accept the planned binding of moves to %s", answered, dst)
	}
	if !strings.Contains(answered, "seed/"+src+" cordoned (server dry run)\n") {
		t.Errorf("drain --dry-run=server printed\n%s", answered)
	}
	if after := l.shootVersions(t); !maps.Equal(after, before) {
		t.Errorf("the dry runs changed shoots: resourceVersions %s, before %s", after, before)
	}
	if now, nowVersion := seedTaints(t, src); now != taints || nowVersion != seedVersion {
		t.Errorf("the dry runs changed seed %s: taints %s (resourceVersion %s), before %s (%s)", src, now, nowVersion, taints, seedVersion)
	}

	r := runGraftctl(t.Context(), t, append([]string{"--api=core.gardener.cloud"}, append(args, "--migrate", "--migration-rate=0", "--wait=false")...)...)
	t.Logf("drain --migrate printed:\n%s%s", r.out, r.errOut)
	if factory.ExitCode(r.err) != 1 || !strings.Contains(r.errOut, "seed "+src+" not drained: 1/4 shoots moved, 3 left (3 fit no other seed;") {
		t.Errorf("drain --migrate: %v (exit code %d), want exit code 1 naming the shoots left", r.err, factory.ExitCode(r.err))
	}
	for _, want := range []string{
		"seed/" + src + " cordoned\n",
		"4 shoot(s) to migrate off seed/" + src + "\n",
		key("moves") + " moved to seed/" + dst + "\n1/4 shoots moved\n",
		key("nobackup") + " held (skipped_no_fit): ",
	} {
		if !strings.Contains(r.out, want) {
			t.Errorf("drain --migrate printed\n%s\nwant it to contain %q", r.out, want)
		}
	}
	if strings.Contains(r.out, "held (refused)") {
		t.Errorf("drain --migrate sent a binding Gardener refused:\n%s", r.out)
	}
	if got, _ := seedTaints(t, src); got != `[{"key":"seed.gardener.cloud/unschedulable"}]` {
		t.Errorf("seed %s taints after the drain: %s, want the cordon taint", src, got)
	}
	for name := range selectors {
		shoot, err := dynamicClient(t).Resource(shoots).Namespace(l.namespace).Get(t.Context(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		seed, _, _ := unstructured.NestedString(shoot.Object, "spec", "seedName")
		if name != "moves" {
			if seed != src || shoot.GetResourceVersion() != before[name] {
				t.Errorf("shoot %s is on %q at resourceVersion %s, want it left on %s at %s", name, seed, shoot.GetResourceVersion(), src, before[name])
			}
			continue
		}
		if seed != dst {
			t.Errorf("shoot %s has spec.seedName %q after the drain, want %s", name, seed, dst)
		}
		if !boundBy(shoot, "graftctl") {
			t.Errorf("shoot %s was not moved by graftctl through shoots/binding: managedFields %v", name, shoot.GetManagedFields())
		}
		// Until gardenlet has moved the control plane (status.seedName),
		// Gardener keeps the shoot's spec as it is.
		if err := unstructured.SetNestedField(shoot.Object, "testing", "spec", "purpose"); err != nil {
			t.Fatal(err)
		}
		err = update(t, dynamicClient(t).Resource(shoots).Namespace(l.namespace), shoot)
		expectRefused(t, "changing the spec of a shoot whose control plane is being migrated", err, "shoot spec cannot be changed because shoot has been rescheduled to a new seed")
	}
}

// runsOn gives a bound shoot the status gardenlet reports for a shoot whose
// control plane runs on seed: status.seedName and a succeeded reconciliation.
func runsOn(t *testing.T, shoot *unstructured.Unstructured, seed string) {
	t.Helper()
	shoot = shoot.DeepCopy()
	shoot.Object["status"] = map[string]any{
		"seedName": seed,
		"lastOperation": map[string]any{"type": "Reconcile", "state": "Succeeded", "progress": int64(100),
			"description": "shoot reconciled", "lastUpdateTime": time.Now().UTC().Format(time.RFC3339)},
	}
	if _, err := dynamicClient(t).Resource(shoots).Namespace(shoot.GetNamespace()).UpdateStatus(t.Context(), shoot, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("reporting shoot %s running on %s: %v", shoot.GetName(), seed, err)
	}
}

// shootVersions maps the landscape's shoots to their resourceVersions.
func (l *landscape) shootVersions(t *testing.T) map[string]string {
	t.Helper()
	list, err := dynamicClient(t).Resource(shoots).Namespace(l.namespace).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, s := range list.Items {
		out[s.GetName()] = s.GetResourceVersion()
	}
	return out
}

// boundBy reports whether manager wrote the shoot's spec.seedName through
// shoots/binding, as the API server records it in managedFields.
func boundBy(shoot *unstructured.Unstructured, manager string) bool {
	for _, f := range shoot.GetManagedFields() {
		if f.Manager == manager && f.Subresource == "binding" && f.Operation == metav1.ManagedFieldsOperationUpdate &&
			f.FieldsV1 != nil && strings.Contains(string(f.FieldsV1.Raw), `"f:seedName"`) {
			return true
		}
	}
	return false
}

// gardenletStandIn runs gardenerlandscape.GardenletStandIn, which finishes
// each control-plane migration after a delay (shoots hold names are left in
// flight), and follows every shoot of the garden: it records the most
// migrations in flight at once, in all and to one seed, and how often each
// shoot's spec.seedName changed.
type gardenletStandIn struct {
	delay time.Duration

	mu       sync.Mutex
	hold     map[string]bool
	inFlight map[string]string
	most     int
	mostTo   int
	spec     map[string]string
	moves    map[string]int
}

// runGardenletStandIn starts a gardenlet stand-in for the rest of the test.
func runGardenletStandIn(t *testing.T, delay time.Duration) *gardenletStandIn {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(cancel)
	g := newGardenletStandIn(delay)
	g.start(t, ctx)
	return g
}

func newGardenletStandIn(delay time.Duration) *gardenletStandIn {
	return &gardenletStandIn{delay: delay, hold: map[string]bool{}, inFlight: map[string]string{}, spec: map[string]string{}, moves: map[string]int{}}
}

// start runs the stand-in until ctx ends; it sees every change from its
// return on.
func (g *gardenletStandIn) start(t *testing.T, ctx context.Context) {
	t.Helper()
	s := &gardenerlandscape.GardenletStandIn{Dynamic: dynamicClient(t), Delay: g.delay, Observe: g.observe,
		Hold: func(_, name string) bool {
			g.mu.Lock()
			defer g.mu.Unlock()
			return g.hold[name]
		}}
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
}

func (g *gardenletStandIn) observe(event watch.EventType, shoot *unstructured.Unstructured) {
	spec, _, _ := unstructured.NestedString(shoot.Object, "spec", "seedName")
	status, _, _ := unstructured.NestedString(shoot.Object, "status", "seedName")
	key := shoot.GetNamespace() + "/" + shoot.GetName()
	g.mu.Lock()
	defer g.mu.Unlock()
	if event != watch.Deleted && spec != "" && status != "" && spec != status {
		g.inFlight[key] = spec
	} else {
		delete(g.inFlight, key)
	}
	g.most = max(g.most, len(g.inFlight))
	to := map[string]int{}
	for _, dest := range g.inFlight {
		to[dest]++
		g.mostTo = max(g.mostTo, to[dest])
	}
	if last, seen := g.spec[key]; seen && last != "" && spec != last {
		g.moves[key]++
	}
	g.spec[key] = spec
}

func (g *gardenletStandIn) mostInFlight() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.most
}

// mostInFlightTo is the most migrations seen in flight to one seed at once.
func (g *gardenletStandIn) mostInFlightTo() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.mostTo
}

// movesOf is how often the shoot's spec.seedName changed from one seed to
// another while the stand-in watched.
func (g *gardenletStandIn) movesOf(key string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.moves[key]
}

// publishDeschedulerConfig creates a Lease (name, in the garden namespace)
// publishing graft-descheduler's configuration for Gardener, its defaults
// edited by edit, as a leader that ran there left it; it returns the name.
func publishDeschedulerConfig(t *testing.T, name string, edit func(*configv1alpha1.DeschedulerConfiguration)) string {
	t.Helper()
	cfg := &configv1alpha1.DeschedulerConfiguration{API: configv1alpha1.APIGardener}
	edit(cfg)
	cfg.Default()
	value, err := descheduler.EncodeConfiguration(cfg)
	if err != nil {
		t.Fatal(err)
	}
	leases := framework.Shared(t).KubeClient().CoordinationV1().Leases(corev1alpha1.GardenNamespace)
	lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{descheduler.ConfigurationAnnotation: value}}}
	if _, err := leases.Create(t.Context(), lease, metav1.CreateOptions{}); err != nil {
		t.Fatalf("publishing a descheduler configuration on Lease %s: %v", name, err)
	}
	t.Cleanup(func() { _ = leases.Delete(context.Background(), name, metav1.DeleteOptions{}) })
	return name
}

// TestDrainWaitsForMigrationsOnGardener: drain --migrate follows each
// migration until gardenlet (a stand-in here) reports the control plane on
// its new seed, never lets more than --max-in-flight migrations be in flight
// in the garden, one started by someone else included (checked on every
// change of every shoot), and exits 0 once all are done; a migration that
// does not finish within --timeout ends it with exit code 2, saying what
// migrated and what still moves.
func TestDrainWaitsForMigrationsOnGardener(t *testing.T) {
	l := newLandscapeWith(t, "waits", landscapeSeed{"src", migratable}, landscapeSeed{"dst", migratable}, landscapeSeed{"other", migratable})
	src, dst, other := l.seeds[0], l.seeds[1], l.seeds[2]
	for _, seed := range l.seeds {
		markReady(t, seed)
		patch := []byte(`{"metadata":{"labels":{"graft.dev/role":"` + seed + `"}}}`)
		if _, err := dynamicClient(t).Resource(seeds).Patch(t.Context(), seed, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			t.Fatalf("labelling seed %s: %v", seed, err)
		}
	}
	// Every shoot may go to dst only.
	onSeed := func(name, seed string) *unstructured.Unstructured {
		selecting := l.makeShoot(name).SelectSeeds(map[string]string{"graft.dev/role": dst})
		shoot := bind(t, l, createObject(t, shoots, l.namespace, l.shootObject(t, selecting)), seed)
		runsOn(t, shoot, seed)
		return shoot
	}
	for _, name := range []string{"s1", "s2", "s3", "s4"} {
		onSeed(name, src)
	}
	// A migration someone else started: from other to dst.
	others := onSeed("others", other)
	others, err := dynamicClient(t).Resource(shoots).Namespace(l.namespace).Get(t.Context(), others.GetName(), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	bind(t, l, others, dst)

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	g := newGardenletStandIn(2 * time.Second)
	g.start(t, ctx)
	// The shoots share a project: the published budget lets them all move.
	lease := publishDeschedulerConfig(t, "graft-descheduler-waits", func(c *configv1alpha1.DeschedulerConfiguration) {
		c.MaxMovesInFlightPerProject = ptr.To[int32](10)
	})

	r := runGraftctl(t.Context(), t, "--api=core.gardener.cloud", "drain", src, "--migrate", "--strategy=SameRegion", "--descheduler-lease-name="+lease,
		"--migration-rate=0", "--max-in-flight=2", "--timeout=3m")
	t.Logf("drain --migrate printed:\n%s%s", r.out, r.errOut)
	if r.err != nil {
		t.Fatalf("drain --migrate: %v (exit code %d)", r.err, factory.ExitCode(r.err))
	}
	for _, want := range []string{"held (waiting_for_migrations): ", "seed/" + src + " drained: 4 control plane(s) migrated\n"} {
		if !strings.Contains(r.out, want) {
			t.Errorf("drain --migrate printed\n%s\nwant it to contain %q", r.out, want)
		}
	}
	for _, name := range []string{"s1", "s2", "s3", "s4"} {
		if want := "shoot/" + l.namespace + "/" + name + " migrated to seed/" + dst + "\n"; !strings.Contains(r.out, want) {
			t.Errorf("drain --migrate printed\n%s\nwant it to contain %q", r.out, want)
		}
	}
	if most := g.mostInFlight(); most > 2 {
		t.Errorf("%d migrations were in flight at once, more than --max-in-flight=2", most)
	}

	// A migration gardenlet does not finish in time.
	g.mu.Lock()
	g.hold["stuck"] = true
	g.mu.Unlock()
	if _, err := dynamicClient(t).Resource(seeds).Patch(t.Context(), src, types.MergePatchType, []byte(`{"spec":{"taints":null}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	onSeed("stuck", src)
	r = runGraftctl(t.Context(), t, "--api=core.gardener.cloud", "drain", src, "--migrate", "--strategy=SameRegion", "--descheduler-lease-name="+lease,
		"--migration-rate=0", "--timeout=10s")
	if code := factory.ExitCode(r.err); code != drain.ExitTimedOut {
		t.Fatalf("drain --migrate with a migration that does not finish: %v, exit code %d, want %d\n%s%s", r.err, code, drain.ExitTimedOut, r.out, r.errOut)
	}
	if want := "timed out after 10s draining seed " + src + ": 0 control plane(s) migrated, 1 still moving (" + l.namespace + "/stuck to seed/" + dst + ")"; !strings.Contains(r.errOut, want) {
		t.Errorf("drain --migrate printed\n%s%s\nwant it to say %q", r.out, r.errOut, want)
	}
}

// TestDrainHandsOffToTheDeschedulerOnGardener: where graft-descheduler runs
// and has published its configuration on its Lease, `graftctl drain` on
// Gardener makes no migration itself: it says so, taints the seed, and
// follows the migrations graft-descheduler makes under its own budgets
// (maxMigrationsInFlightPerSeed 1 here) until every shoot runs elsewhere.
func TestDrainHandsOffToTheDeschedulerOnGardener(t *testing.T) {
	l := migrationLandscape(t, "handoff", 20, "hsrc", "hdst")
	src, dst := l.seeds[0], l.seeds[1]
	names := []string{"h1", "h2", "h3"}
	for _, name := range names {
		l.createOn(t, name, src)
	}
	g := runGardenletStandIn(t, time.Second)
	const identity = "graft-descheduler-handoff"
	startGraftDescheduler(t, identity, "config.interval=2s", "config.evictionRate=0", "config.maxMigrationsInFlightPerSeed=1")
	leases := framework.Shared(t).KubeClient().CoordinationV1().Leases(corev1alpha1.GardenNamespace)
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		lease, err := leases.Get(ctx, "graft-descheduler", metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		_, published := lease.Annotations[descheduler.ConfigurationAnnotation]
		return published && lease.Spec.HolderIdentity != nil && *lease.Spec.HolderIdentity == identity, nil
	})
	if err != nil {
		t.Fatalf("graft-descheduler did not publish its configuration on its Lease: %v", err)
	}

	r := runGraftctl(t.Context(), t, "--api=core.gardener.cloud", "drain", src, "--timeout=2m")
	if r.err != nil {
		t.Fatalf("drain: %v\nstdout:\n%s\nstderr:\n%s", r.err, r.out, r.errOut)
	}
	if want := "graft-descheduler (" + identity + ", Lease garden/graft-descheduler) makes the drain's moves"; !strings.Contains(r.errOut, want) {
		t.Errorf("drain said on stderr:\n%s\nwant %q", r.errOut, want)
	}
	for _, want := range []string{"seed/" + src + " cordoned\n", "seed/" + src + " marked for eviction"} {
		if !strings.Contains(r.out, want) {
			t.Errorf("drain printed:\n%s\nwant %q", r.out, want)
		}
	}
	for _, name := range names {
		s := l.migratedOff(t, name, src)
		if dest, _, _ := unstructured.NestedString(s.Object, "spec", "seedName"); dest != dst {
			t.Errorf("shoot %s went to %s, want %s", name, dest, dst)
		}
		// The descheduler's signed record of the move, not graftctl's binding.
		if records := evictionsOf(t, s); len(records) != 1 || records[0].Seed != src {
			t.Errorf("shoot %s records the moves %v, want one off %s by graft-descheduler", name, records, src)
		}
		if n := g.movesOf(l.namespace + "/" + name); n != 1 {
			t.Errorf("shoot %s was moved %d times, want once", name, n)
		}
	}
	if most := g.mostInFlightTo(); most > 1 {
		t.Errorf("%d migrations were in flight to one seed at once, more than the descheduler's maxMigrationsInFlightPerSeed 1", most)
	}
}

// TestDrainMigrateMakesTheDeschedulersMoves: on two landscapes of the same
// shape (a seed of four shoots of one project, two destinations) and under
// the same published budgets (one migration in flight per destination, no
// token bucket), `graftctl drain --migrate`, which runs graft-descheduler's
// engine from the terminal, and graft-descheduler itself, to which a plain
// drain hands the seed, make the same moves: each shoot once, to the same
// destination, one migration in flight per destination at most, each move
// recorded as coming off the drained seed.
func TestDrainMigrateMakesTheDeschedulersMoves(t *testing.T) {
	names := []string{"m1", "m2", "m3", "m4"}
	shape := func(prefix string) *landscape {
		l := migrationLandscape(t, prefix, 20, prefix+"src", prefix+"d1", prefix+"d2")
		for _, name := range names {
			l.createOn(t, name, l.seeds[0])
		}
		return l
	}
	g := runGardenletStandIn(t, time.Second)
	budgets := func(c *configv1alpha1.DeschedulerConfiguration) {
		c.Interval = &metav1.Duration{Duration: 2 * time.Second}
		c.EvictionRate = ptr.To(0.0)
		c.MaxMigrationsInFlightPerSeed = ptr.To[int32](1)
		c.MaxMovesInFlightPerProject = ptr.To[int32](10)
		c.Strategy = configv1alpha1.StrategySameRegion
	}
	// moves maps each shoot to its destination's place in the landscape
	// (1 or 2), once it runs there, and checks its one move and record.
	moves := func(l *landscape) map[string]int {
		out := map[string]int{}
		for _, name := range names {
			s := l.migratedOff(t, name, l.seeds[0])
			dest, _, _ := unstructured.NestedString(s.Object, "spec", "seedName")
			out[name] = slices.Index(l.seeds, dest)
			if n := g.movesOf(l.namespace + "/" + name); n != 1 {
				t.Errorf("shoot %s/%s was moved %d times, want once", l.namespace, name, n)
			}
			if records := evictionsOf(t, s); len(records) != 1 || records[0].Seed != l.seeds[0] {
				t.Errorf("shoot %s/%s records the moves %v, want one off %s", l.namespace, name, records, l.seeds[0])
			}
		}
		return out
	}

	client := shape("cmc")
	lease := publishDeschedulerConfig(t, "graft-descheduler-compare", budgets)
	r := runGraftctl(t.Context(), t, "--api=core.gardener.cloud", "drain", client.seeds[0], "--migrate", "--strategy=SameRegion", "--descheduler-lease-name="+lease, "--timeout=3m")
	t.Logf("drain --migrate printed:\n%s%s", r.out, r.errOut)
	if r.err != nil {
		t.Fatalf("drain --migrate: %v (exit code %d)", r.err, factory.ExitCode(r.err))
	}
	fromTerminal := moves(client)
	if most := g.mostInFlightTo(); most > 1 {
		t.Errorf("drain --migrate had %d migrations in flight to one seed at once, more than maxMigrationsInFlightPerSeed 1", most)
	}

	daemon := shape("cmd")
	const identity = "graft-descheduler-compare"
	startGraftDescheduler(t, identity, "config.interval=2s", "config.evictionRate=0", "config.maxMigrationsInFlightPerSeed=1", "config.maxMovesInFlightPerProject=10")
	leases := framework.Shared(t).KubeClient().CoordinationV1().Leases(corev1alpha1.GardenNamespace)
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		l, err := leases.Get(ctx, "graft-descheduler", metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		_, published := l.Annotations[descheduler.ConfigurationAnnotation]
		return published && l.Spec.HolderIdentity != nil && *l.Spec.HolderIdentity == identity, nil
	})
	if err != nil {
		t.Fatalf("graft-descheduler did not publish its configuration on its Lease: %v", err)
	}
	r = runGraftctl(t.Context(), t, "--api=core.gardener.cloud", "drain", daemon.seeds[0], "--timeout=3m")
	if r.err != nil || !strings.Contains(r.errOut, "graft-descheduler ("+identity) {
		t.Fatalf("drain handed to graft-descheduler: %v\nstdout:\n%s\nstderr:\n%s", r.err, r.out, r.errOut)
	}
	byDaemon := moves(daemon)
	if most := g.mostInFlightTo(); most > 1 {
		t.Errorf("graft-descheduler had %d migrations in flight to one seed at once, more than maxMigrationsInFlightPerSeed 1", most)
	}
	if !maps.Equal(fromTerminal, byDaemon) {
		t.Errorf("drain --migrate moved the shoots to the destinations %v, graft-descheduler to %v: want the same moves", fromTerminal, byDaemon)
	}
	if len(slices.Compact(slices.Sorted(maps.Values(byDaemon)))) != 2 {
		t.Errorf("the moves %v use one destination: the budget of one migration per destination should spread them", byDaemon)
	}
}
