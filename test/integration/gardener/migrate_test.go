//go:build gardener

package gardener

import (
	"maps"
	"regexp"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/graft-dev/graft/pkg/controlplane/gardenerlandscape"
)

// The domains of the migration landscape's seeds: a control plane may move
// between seeds of the same internal domain and keeps its default domain.
const (
	migrationInternalDomain = "internal.migration.graft.example"
	migrationDefaultDomain  = "shoots.migration.graft.example"
)

// TestDrainMigratesOnGardener: on a Gardener garden `graftctl drain --migrate`
// cordons the seed and moves each shoot's control plane to the seed the
// algorithm chooses, through shoots/binding. The drained seed has backup;
// each shoot runs on it (status.seedName) and may go to one seed only (its
// seedSelector): one with backup and
// the same internal and default domains, which Gardener accepts, and three
// that Gardener refuses (no backup, another internal domain, no default
// domain for the shoot's domain). --dry-run predicts exactly what
// --dry-run=server gets from Gardener's admission, and neither writes; the
// drain moves the one shoot, whose spec Gardener then keeps until gardenlet
// has moved its control plane, explains each refusal, leaves those shoots
// where they were and exits non-zero.
func TestDrainMigratesOnGardener(t *testing.T) {
	same := gardenerlandscape.SeedSpec{Backup: true, InternalDomain: migrationInternalDomain, DefaultDomain: migrationDefaultDomain}
	spec := func(name string, edit func(*gardenerlandscape.SeedSpec)) gardenerlandscape.SeedSpec {
		s := same
		s.Name = name
		if edit != nil {
			edit(&s)
		}
		return s
	}
	l := newLandscapeWith(t, "migrate",
		spec("src", nil),
		spec("dst", nil),
		spec("nob", func(s *gardenerlandscape.SeedSpec) { s.Backup = false }),
		spec("dom", func(s *gardenerlandscape.SeedSpec) { s.InternalDomain = "other-internal.migration.graft.example" }),
		spec("def", func(s *gardenerlandscape.SeedSpec) { s.DefaultDomain = "elsewhere.migration.graft.example" }),
	)
	src, dst, nob, dom, def := l.seeds[0], l.seeds[1], l.seeds[2], l.seeds[3], l.seeds[4]
	for _, seed := range l.seeds {
		markReady(t, seed)
		patch := []byte(`{"metadata":{"labels":{"` + landscapeLabel + `":"` + l.project + `","graft.dev/role":"` + seed + `"}}}`)
		if _, err := dynamicClient(t).Resource(seeds).Patch(t.Context(), seed, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			t.Fatalf("labelling seed %s: %v", seed, err)
		}
	}
	// Each shoot may go to its destination only; all start on src, where
	// Gardener gives them a domain under src's default domain.
	destinations := map[string]string{"moves": dst, "nobackup": nob, "domain": dom, "default": def}
	for name, to := range destinations {
		spec := l.shootSpec(name)
		spec.SeedSelector = map[string]string{"graft.dev/role": to}
		shoot := create(t, shoots, l.namespace, gardenerlandscape.Shoot(spec))
		bound := bind(t, l, shoot, src)
		if domain, _, _ := unstructured.NestedString(bound.Object, "spec", "dns", "domain"); !strings.HasSuffix(domain, "."+migrationDefaultDomain) {
			t.Fatalf("shoot %s bound to %s has domain %q, want one under %s", name, src, domain, migrationDefaultDomain)
		}
		runsOn(t, bound, src)
	}
	before := l.shootVersions(t)
	taints, seedVersion := seedTaints(t, src)

	key := func(name string) string { return "shoot/" + l.namespace + "/" + name }
	wouldRefuse := func(name, to, why string) string {
		return key(name) + " would move to seed/" + to + ", but Gardener would refuse: " + why
	}
	args := []string{"drain", src, "--strategy=SameRegion"}
	predicted := onGardener(t, append(args, "--dry-run")...)
	for _, want := range []string{
		"seed/" + src + " cordoned (dry run)\n",
		wouldRefuse("default", def, `the shoot's domain lies under "`+migrationDefaultDomain+`", a default domain of seed `+src+` that seed `+def+` does not offer`),
		wouldRefuse("domain", dom, "seeds "+src+" and "+dom+` have different internal DNS domains ("`+migrationInternalDomain+`" and "other-internal.migration.graft.example")`),
		key("moves") + " would move to seed/" + dst + "\n",
		wouldRefuse("nobackup", nob, "destination seed "+nob+" has no spec.backup: Gardener migrates a control plane only between seeds that both have backup; configure backup on seed "+nob+", or cordon seed "+nob+" so that another seed is chosen\n"),
		"4 shoot(s) on seed/" + src + ": 1 would move, 0 cannot move, 3 would be refused by Gardener (dry run)\n",
	} {
		if !strings.Contains(predicted, want) {
			t.Errorf("drain --dry-run printed\n%s\nwant it to contain %q", predicted, want)
		}
	}
	answered := onGardener(t, append(args, "--dry-run=server")...)
	if got, want := shootLines(answered), shootLines(predicted); got != want {
		t.Errorf("Gardener's admission (--dry-run=server) answered\n%s\nbut --dry-run predicted\n%s", got, want)
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

	r := runGraftctl(t.Context(), t, append([]string{"--api=core.gardener.cloud"}, append(args, "--migrate", "--migration-rate=0")...)...)
	t.Logf("drain --migrate printed:\n%s%s", r.out, r.errOut)
	if r.err == nil || !strings.Contains(r.errOut, "seed "+src+" not drained: 1/4 shoots moved, 3 left (3 refused by Gardener;") {
		t.Errorf("drain --migrate: %v, want a non-zero exit naming the shoots left", r.err)
	}
	for _, want := range []string{
		"seed/" + src + " cordoned\n",
		"4 shoot(s) to migrate off seed/" + src + "\n",
		key("moves") + " moved to seed/" + dst + "\n1/4 shoots moved\n",
		key("nobackup") + " not moved to seed/" + nob + ": destination seed " + nob + " has no spec.backup",
		key("domain") + " not moved to seed/" + dom + ": seeds " + src + " and " + dom + " have different internal DNS domains",
		key("default") + " not moved to seed/" + def + `: the shoot's domain lies under "` + migrationDefaultDomain + `"`,
	} {
		if !strings.Contains(r.out, want) {
			t.Errorf("drain --migrate printed\n%s\nwant it to contain %q", r.out, want)
		}
	}
	if got, _ := seedTaints(t, src); got != `[{"key":"seed.gardener.cloud/unschedulable"}]` {
		t.Errorf("seed %s taints after the drain: %s, want the cordon taint", src, got)
	}
	for name, to := range destinations {
		shoot, err := dynamicClient(t).Resource(shoots).Namespace(l.namespace).Get(t.Context(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		seed, _, _ := unstructured.NestedString(shoot.Object, "spec", "seedName")
		if name != "moves" {
			if seed != src || shoot.GetResourceVersion() != before[name] {
				t.Errorf("refused shoot %s is on %q at resourceVersion %s, want it left on %s at %s", name, seed, shoot.GetResourceVersion(), src, before[name])
			}
			continue
		}
		if seed != to {
			t.Errorf("shoot %s has spec.seedName %q after the drain, want %s", name, seed, to)
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

var shootLine = regexp.MustCompile(`(?m)^shoot/.*$`)

// shootLines are the lines a drain printed about single shoots.
func shootLines(out string) string {
	return strings.Join(shootLine.FindAllString(out, -1), "\n")
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
