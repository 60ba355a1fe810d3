package get

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"

	"github.com/graft-dev/client-go/clientset/versioned/fake"
	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"

	"github.com/graft-dev/graft/pkg/capacity/forecast"
	"github.com/graft-dev/graft/pkg/controlplane/gardenerlandscape"
	"github.com/graft-dev/graft/pkg/coretest"
	"github.com/graft-dev/graft/pkg/garden"
	"github.com/graft-dev/graft/pkg/graftctl/cmdtest"
	"github.com/graft-dev/graft/pkg/graftctl/factory"
)

var created = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func init() { now = func() time.Time { return created.Add(49 * time.Hour) } }

func objects() []runtime.Object {
	a := coretest.MakeSeed("aws-eu1").Allocatable(40).Taints(corev1alpha1.SeedTaint{Key: corev1alpha1.SeedTaintUnschedulable, Effect: corev1alpha1.TaintEffectNoSchedule}).Obj()
	a.Status.Usage = corev1.ResourceList{corev1alpha1.ResourceShoots: *resource.NewQuantity(3, resource.DecimalSI)}
	b := coretest.MakeSeed("aws-eu2").Obj()
	b.Status.Conditions[0].Status = corev1alpha1.ConditionFalse
	s1 := coretest.MakeShoot("dev", "s1").Seed("aws-eu1").Purpose(corev1alpha1.ShootPurposeProduction).Obj()
	s1.Status.LastOperation = &corev1alpha1.LastOperation{Type: corev1alpha1.LastOperationTypeReconcile, State: corev1alpha1.LastOperationStateSucceeded}
	s2 := coretest.MakeShoot("dev", "s2").Obj()
	s3 := coretest.MakeShoot("prod", "s3").Seed("aws-eu2").Obj()
	s4 := coretest.MakeShoot("prod", "s4").Seed("aws-eu2").Obj()
	out := []runtime.Object{a, b, s1, s2, s3, s4}
	for _, o := range out {
		o.(metav1.Object).SetCreationTimestamp(metav1.NewTime(created))
	}
	return out
}

func run(t *testing.T, namespace string, args ...string) (string, string, error) {
	t.Helper()
	return cmdtest.Run(t, NewCommand, &factory.Static{Graft: fake.NewSimpleClientset(objects()...), DefaultNamespace: namespace}, "", args...)
}

func TestGetSeeds(t *testing.T) {
	out, _, err := run(t, "", "seeds")
	if err != nil {
		t.Fatal(err)
	}
	want := `NAME      READY   PROVIDER   REGION      USAGE/ALLOCATABLE   TAINTS                                         AGE
aws-eu1   True    aws        eu-west-1   3/40                seed.gardener.cloud/unschedulable:NoSchedule   2d1h
aws-eu2   False   aws        eu-west-1   2/-                 <none>                                         2d1h
`
	if out != want {
		t.Errorf("output:\n%s\nwant:\n%s", out, want)
	}
}

func TestGetSeedsWide(t *testing.T) {
	out, _, err := run(t, "", "seed", "aws-eu1", "-o", "wide")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out, "\n")
	for _, col := range []string{"ZONES", "VISIBLE", "CAPACITY", "LAST-OPERATION"} {
		if !strings.Contains(lines[0], col) {
			t.Errorf("wide header lacks %s: %s", col, lines[0])
		}
	}
	if !strings.Contains(lines[1], "a,b,c") || !strings.Contains(lines[1], "Reconcile Succeeded") {
		t.Errorf("wide row: %s", lines[1])
	}
}

// get seeds -o wide shows the pools graft-capacity-annotator publishes and
// when the first of each seed's region and pools is full.
func TestGetSeedsWideForecast(t *testing.T) {
	at := now()
	graft := fake.NewSimpleClientset(coretest.MakeCloudProfile("aws").Regions("eu-west-1", "us-east-1").Obj(),
		coretest.MakeSeed("blue-0").Allocatable(2).Label("pool", "blue").Obj(),
		coretest.MakeSeed("roomy").Allocatable(10).Obj(),
		coretest.MakeSeed("east").Region("us-east-1").Allocatable(10).Obj(),
		coretest.MakeShoot("dev", "one").Seed("blue-0").Created(at.Add(-time.Hour)).Obj(),
		coretest.MakeShoot("dev", "two").Seed("blue-0").Created(at.Add(-2*time.Hour)).Obj(),
		coretest.MakeShoot("dev", "three").Seed("roomy").Created(at.Add(-3*time.Hour)).Obj())
	published := `{"version":"v1","window":"4h0m0s","horizon":"24h0m0s","pools":[{"name":"blue","seedSelector":{"matchLabels":{"pool":"blue"}}}]}`
	kube := kubefake.NewSimpleClientset(&coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: "garden", Name: "graft-capacity-annotator",
		Annotations: map[string]string{forecast.Annotation: published}}})
	out, _, err := cmdtest.Run(t, NewCommand, &factory.Static{Graft: graft, Kube: kube}, "", "seeds", "-o", "wide")
	if err != nil {
		t.Fatal(err)
	}
	// eu-west-1: 9 free, 3 new in 4 hours: full in 12h. Pool blue is full.
	// us-east-1: nothing arrived.
	cmdtest.Contains(t, out, "POOLS    FULL-IN\n")
	for seed, want := range map[string]string{"blue-0": "blue     now (blue)", "roomy": "<none>   12h (eu-west-1)", "east": "<none>   never"} {
		found := false
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(line, seed+" ") {
				found = true
				if !strings.HasSuffix(line, want) {
					t.Errorf("row of %s is %q, want it to end %q", seed, line, want)
				}
			}
		}
		if !found {
			t.Errorf("no row of %s in\n%s", seed, out)
		}
	}
}

func TestGetShoots(t *testing.T) {
	out, _, err := run(t, "dev", "shoots")
	if err != nil {
		t.Fatal(err)
	}
	want := `NAME   SEED      PROVIDER   REGION      PURPOSE      STATUS      AGE
s1     aws-eu1   aws        eu-west-1   production   Succeeded   2d1h
s2     <none>    aws        eu-west-1   <none>       Pending     2d1h
`
	if out != want {
		t.Errorf("output:\n%s\nwant:\n%s", out, want)
	}
}

func TestGetShootsAllNamespaces(t *testing.T) {
	out, _, err := run(t, "dev", "shoots", "-A", "--no-headers")
	if err != nil {
		t.Fatal(err)
	}
	want := `dev    s1    aws-eu1   aws   eu-west-1   production   Succeeded   2d1h
dev    s2    <none>    aws   eu-west-1   <none>       Pending     2d1h
prod   s3    aws-eu2   aws   eu-west-1   <none>       <none>      2d1h
prod   s4    aws-eu2   aws   eu-west-1   <none>       <none>      2d1h
`
	if out != want {
		t.Errorf("output:\n%s\nwant:\n%s", out, want)
	}
}

func TestGetEmptyNamespace(t *testing.T) {
	out, errOut, err := run(t, "nothing-here", "shoots")
	if err != nil || out != "" || errOut != "No resources found in nothing-here namespace.\n" {
		t.Errorf("out=%q errOut=%q err=%v", out, errOut, err)
	}
}

func TestGetOutputFormats(t *testing.T) {
	out, _, err := run(t, "dev", "shoot", "s1", "-o", "json")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, `"kind": "Shoot"`) || !strings.Contains(out, `"seedName": "aws-eu1"`) {
		t.Errorf("json:\n%s", out)
	}
	out, _, err = run(t, "", "seeds", "-o", "yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "kind: SeedList") || strings.Count(out, "kind: Seed\n") != 2 {
		t.Errorf("yaml:\n%s", out)
	}
	out, _, err = run(t, "", "seeds", "-o", "name")
	if err != nil {
		t.Fatal(err)
	}
	if out != "seed.core.graft.dev/aws-eu1\nseed.core.graft.dev/aws-eu2\n" {
		t.Errorf("name output %q", out)
	}
}

func TestGetErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "you must specify the type of resource to get: seeds or shoots"},
		{[]string{"nodes"}, `the server doesn't have a resource type "nodes": graftctl gets seeds or shoots`},
		{[]string{"seeds", "-o", "xml"}, `unable to match a printer suitable for the output format "xml", allowed formats are: go-template,go-template-file,json,jsonpath,jsonpath-as-json,jsonpath-file,kyaml,name,template,templatefile,yaml`},
		{[]string{"seed", "nope"}, `seeds.core.graft.dev "nope" not found`},
	} {
		if _, _, err := run(t, "", tc.args...); err == nil || err.Error() != tc.want {
			t.Errorf("get %q: error %v, want %q", tc.args, err, tc.want)
		}
	}
}

// The READY, TAINTS and TOLERATIONS cells come from the API helper, so that
// graftctl shows what the scheduler decides on.
func TestSeedAndShootCells(t *testing.T) {
	cell := func(table *metav1.Table, name string) any {
		for i, c := range table.ColumnDefinitions {
			if c.Name == name {
				return table.Rows[0].Cells[i]
			}
		}
		t.Fatalf("no column %s", name)
		return nil
	}
	for _, tc := range []struct {
		name        string
		seed        *corev1alpha1.Seed
		ready, tnts string
	}{
		{name: "ready", seed: coretest.MakeSeed("a").Obj(), ready: "True", tnts: "<none>"},
		{name: "agent not ready", seed: coretest.MakeSeed("a").Condition(corev1alpha1.SeedGardenletReady, corev1alpha1.ConditionFalse).Obj(),
			ready: "False", tnts: "<none>"},
		// The scheduler does not use a seed that was never reconciled.
		{name: "never reconciled", seed: coretest.MakeSeed("a").With(func(s *corev1alpha1.Seed) { s.Status.LastOperation = nil }).Obj(),
			ready: "Unknown", tnts: "<none>"},
		{name: "backup failing on a seed with backup", seed: coretest.MakeSeed("a").Backup("aws").
			Condition(corev1alpha1.SeedBackupBucketsReady, corev1alpha1.ConditionFalse).Obj(), ready: "False", tnts: "<none>"},
		{name: "taints in kubectl's form", seed: coretest.MakeSeed("a").Taints(
			corev1alpha1.SeedTaint{Key: corev1alpha1.SeedTaintProtected},
			corev1alpha1.SeedTaint{Key: "dedicated", Value: ptr.To(""), Effect: corev1alpha1.TaintEffectNoExecute},
			corev1alpha1.SeedTaint{Key: "team", Value: ptr.To("a"), Effect: corev1alpha1.TaintEffectPreferNoSchedule},
		).Obj(), ready: "True", tnts: "seed.gardener.cloud/protected:NoSchedule,dedicated:NoExecute,team=a:PreferNoSchedule"},
	} {
		table := SeedTable([]corev1alpha1.Seed{*tc.seed}, nil, nil, nil)
		if got := cell(table, "Ready"); got != tc.ready {
			t.Errorf("%s: READY %q, want %q", tc.name, got, tc.ready)
		}
		if got := cell(table, "Taints"); got != tc.tnts {
			t.Errorf("%s: TAINTS %q, want %q", tc.name, got, tc.tnts)
		}
	}
	shoot := coretest.MakeShoot("dev", "s").Tolerations(
		corev1alpha1.Toleration{Key: "a"},
		corev1alpha1.Toleration{Key: "b", Value: ptr.To(""), Effect: corev1alpha1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](300)},
	).Obj()
	if got, want := cell(ShootTable([]corev1alpha1.Shoot{*shoot}), "Tolerations"), "a,b:NoExecute for 300s"; got != want {
		t.Errorf("TOLERATIONS %q, want %q", got, want)
	}
	// The cloud profile the algorithm reads: spec.cloudProfile.name, or the
	// older spec.cloudProfileName when the reference has no name.
	shoot.Spec.CloudProfile = &corev1alpha1.CloudProfileReference{Kind: "CloudProfile"}
	shoot.Spec.CloudProfileName = ptr.To("aws-old")
	shoot.Spec.SchedulerName = ptr.To("")
	table := ShootTable([]corev1alpha1.Shoot{*shoot})
	if got := cell(table, "Cloud-Profile"); got != "aws-old" {
		t.Errorf("CLOUD-PROFILE %q, want aws-old", got)
	}
	if got := cell(table, "Scheduler"); got != corev1alpha1.DefaultSchedulerName {
		t.Errorf("SCHEDULER %q, want %s", got, corev1alpha1.DefaultSchedulerName)
	}
}

// TestShootStatus: STATUS is the last operation's state, except that a shoot
// waiting for a seed is Pending: one never placed without an operation, and
// one graft-descheduler evicted (which writes no lastOperation) whatever its
// operation said before.
func TestShootStatus(t *testing.T) {
	succeeded := func(s *corev1alpha1.Shoot) {
		s.Status.LastOperation = &corev1alpha1.LastOperation{Type: corev1alpha1.LastOperationTypeReconcile, State: corev1alpha1.LastOperationStateSucceeded}
	}
	evicted := func(s *corev1alpha1.Shoot) {
		s.Spec.SeedName = nil
		s.Annotations = map[string]string{corev1alpha1.AnnotationDescheduledFrom: "old"}
	}
	placedAgain := func(s *corev1alpha1.Shoot) {
		s.Annotations = map[string]string{corev1alpha1.AnnotationDescheduledFrom: "old"}
	}
	for _, tc := range []struct {
		name  string
		shoot *corev1alpha1.Shoot
		want  string
	}{
		{"bound, no operation", coretest.MakeShoot("dev", "s").Seed("a").Obj(), "<none>"},
		{"bound, succeeded", coretest.MakeShoot("dev", "s").Seed("a").With(succeeded).Obj(), "Succeeded"},
		{"new, no operation", coretest.MakeShoot("dev", "s").Obj(), "Pending"},
		{"evicted, succeeded before", coretest.MakeShoot("dev", "s").Seed("a").With(succeeded).With(evicted).Obj(), "Pending"},
		{"evicted and placed again", coretest.MakeShoot("dev", "s").Seed("b").With(succeeded).With(placedAgain).Obj(), "Succeeded"},
	} {
		if got := ShootStatus(tc.shoot); got != tc.want {
			t.Errorf("%s: STATUS %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestGetSeedsOnGardenerMarksTaintsGardenletRemoves: a taint on the Seed that
// its Gardenlet's seedConfig lacks is marked, and the mark explained on
// stderr; a seed without a configuration object has nothing marked.
func TestGetSeedsOnGardenerMarksTaintsGardenletRemoves(t *testing.T) {
	client := coretest.FakeGardener(
		gardenerlandscape.MustSeed(coretest.MakeSeed("a").ResourceVersion("1").Taint("seed.gardener.cloud/protected", nil, "").Taint("maintenance", nil, "").Obj(), "dns"),
		gardenerlandscape.MustSeed(coretest.MakeSeed("b").ResourceVersion("2").Taint("maintenance", nil, "").Obj(), "dns"),
		coretest.GardenerSeedConfig("Gardenlet", "a", "3", "seed.gardener.cloud/protected"))
	var out, errOut bytes.Buffer
	cmd := NewCommand(&factory.Static{API: garden.Gardener, Dynamic: client}, genericiooptions.IOStreams{In: &bytes.Buffer{}, Out: &out, ErrOut: &errOut})
	cmd.SetArgs([]string{"seeds"})
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	if want := "seed.gardener.cloud/protected:NoSchedule,maintenance:NoSchedule* "; !strings.Contains(out.String(), want) {
		t.Errorf("output:\n%s\nwant seed a's taints as %q", out.String(), want)
	}
	if !strings.Contains(out.String(), " maintenance:NoSchedule ") {
		t.Errorf("output:\n%s\nwant seed b's taint unmarked", out.String())
	}
	if want := "*: on the Seed but not in its gardenlet configuration (a): gardenlet removes it when it next starts\n"; errOut.String() != want {
		t.Errorf("stderr %q, want %q", errOut.String(), want)
	}
}
