package describe

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	kubefake "k8s.io/client-go/kubernetes/fake"

	"github.com/graft-dev/client-go/clientset/versioned/fake"
	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"

	"github.com/graft-dev/graft/pkg/coretest"
	"github.com/graft-dev/graft/pkg/garden"
	"github.com/graft-dev/graft/pkg/graftctl/cmdtest"
	"github.com/graft-dev/graft/pkg/graftctl/factory"
)

var testNow = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

func init() { now = func() time.Time { return testNow } }

func event(name, reason, message string, at time.Time) *corev1.Event {
	return &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Namespace: "dev", Name: name},
		InvolvedObject: corev1.ObjectReference{Kind: "Shoot", Namespace: "dev", Name: "s1"},
		Type:           corev1.EventTypeWarning, Reason: reason, Message: message,
		Source:        corev1.EventSource{Component: "graft-scheduler"},
		LastTimestamp: metav1.NewTime(at), Count: 1,
	}
}

func run(t *testing.T, graft *fake.Clientset, kube *kubefake.Clientset, args ...string) (string, error) {
	t.Helper()
	out, errOut, err := cmdtest.Run(t, NewCommand, &factory.Static{Graft: graft, Kube: kube, DefaultNamespace: "dev"}, "", args...)
	return out + errOut, err
}

func TestDescribeUnscheduledShootExplains(t *testing.T) {
	full := coretest.MakeSeed("b-full").Allocatable(0).Obj()
	tainted := coretest.MakeSeed("c-tainted").Taints(corev1alpha1.SeedTaint{Key: "dedicated", Effect: corev1alpha1.TaintEffectNoSchedule}).Obj()
	far := coretest.MakeSeed("a-far").Region("us-east-1").Obj()
	shoot := coretest.MakeShoot("dev", "s1").Obj()
	graft := fake.NewSimpleClientset(coretest.MakeCloudProfile("aws").Regions("eu-west-1").Obj(), far, full, tainted, shoot)
	kube := kubefake.NewSimpleClientset(
		event("e2", "SchedulingFailed", "0/3 seeds fit", testNow.Add(-time.Minute)),
		event("e1", "SchedulingFailed", "older", testNow.Add(-time.Hour)),
	)
	out, err := run(t, graft, kube, "shoot", "s1", "--events-limit=1")
	if err != nil {
		t.Fatal(err)
	}
	cmdtest.Contains(t, out,
		"Name:            s1\n",
		"Namespace:       dev\n",
		"Seed:            <none>\n",
		"  Warning  SchedulingFailed  60s   graft-scheduler  0/3 seeds fit\n",
		"Scheduling (the algorithm run now against 3 seed(s)):\n",
		"  shoot dev/s1 (strategy SameRegion): not scheduled: ",
		"  a-far ",
		"  b-full ",
		"  c-tainted ",
	)
	if strings.Contains(out, "older") {
		t.Errorf("--events-limit=1 showed the older event:\n%s", out)
	}
}

func TestDescribeScheduledShootHasNoExplanation(t *testing.T) {
	graft := fake.NewSimpleClientset(coretest.MakeCloudProfile("aws").Regions("eu-west-1").Obj(), coretest.MakeSeed("a").Obj(), coretest.MakeShoot("dev", "s1").Seed("a").Tolerations(corev1alpha1.Toleration{Key: "k", Effect: corev1alpha1.TaintEffectNoExecute}).Obj())
	out, err := run(t, graft, kubefake.NewSimpleClientset(), "shoot", "s1")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Seed:            a\n", "Events:  <none>\n", "Tolerations:     k:NoExecute\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Scheduling") {
		t.Errorf("a scheduled shoot was explained:\n%s", out)
	}
}

func TestDescribeErrors(t *testing.T) {
	graft := fake.NewSimpleClientset()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"node", "a"}, "invalid resource type node, only seeds and shoots can be described"},
		{[]string{"seed"}, "at least one seed name must be specified"},
		{[]string{"seed", "nope"}, `seeds.core.graft.dev "nope" not found`},
		{[]string{"shoot"}, "at least one shoot name must be specified"},
		{[]string{"shoot", "nope"}, `shoots.core.graft.dev "nope" not found`},
	} {
		if _, err := run(t, graft, kubefake.NewSimpleClientset(), tc.args...); err == nil || err.Error() != tc.want {
			t.Errorf("describe %q: error %v, want %q", tc.args, err, tc.want)
		}
	}
}

// TestDescribeOnGardenerNotesTaintsGardenletRemoves: a seed kept from a
// pending shoot by a taint its Gardenlet's seedConfig lacks is named, with
// the taint, as one gardenlet frees when it next starts.
func TestDescribeOnGardenerNotesTaintsGardenletRemoves(t *testing.T) {
	tainted := coretest.MakeSeed("b").Taints(corev1alpha1.SeedTaint{Key: "maintenance"}).Obj()
	client := coretest.FakeGardener(
		coretest.AsGardener(coretest.MakeCloudProfile("aws").Regions("eu-west-1").Obj(), "CloudProfile"),
		coretest.AsGardener(tainted, "Seed"),
		coretest.AsGardener(coretest.MakeShoot("dev", "s1").Obj(), "Shoot"),
		coretest.GardenerSeedConfig("Gardenlet", "b", "3"))
	var out bytes.Buffer
	cmd := NewCommand(&factory.Static{API: garden.Gardener, Dynamic: client, Kube: kubefake.NewSimpleClientset(), DefaultNamespace: "dev"},
		genericiooptions.IOStreams{In: &bytes.Buffer{}, Out: &out, ErrOut: &out})
	cmd.SetArgs([]string{"shoot", "s1"})
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if want := "note: seed b: taint(s) maintenance:NoSchedule are not in gardenlet.seedmanagement.gardener.cloud/b, so gardenlet removes them when it next starts"; !strings.Contains(out.String(), want) {
		t.Errorf("output lacks %q:\n%s", want, out.String())
	}
}

// A tenant's strings must not add lines or columns to describe's output: a
// region with newlines and tabs once printed fake "Seed:" and "Descheduled
// From:" lines.
func TestDescribeQuotesTenantStrings(t *testing.T) {
	forged := "eu-west-1\nSeed:\tprod-seed-7\nDescheduled From:\tprod-seed-1 (operator approved)"
	shoot := coretest.MakeShoot("dev", "s1").Region(forged).Seed("a").With(func(s *corev1alpha1.Shoot) {
		s.Labels = map[string]string{"team": "a\nSeed:\tfake"}
		s.Annotations = map[string]string{"note": "x\tStatus Seed:\ty"}
		s.Spec.Provider.Type = "aws\nPurpose:\tinfrastructure"
		s.Spec.Tolerations = []corev1alpha1.Toleration{{Key: "k\nSeed:\tz"}}
		s.Status.LastOperation = &corev1alpha1.LastOperation{Type: "Create", State: "Pending", Description: "ok\nSeed:\tw"}
	}).Obj()
	graft := fake.NewSimpleClientset(coretest.MakeCloudProfile("aws").Regions("eu-west-1").Obj(), coretest.MakeSeed("a").Obj(), shoot)
	out, err := run(t, graft, kubefake.NewSimpleClientset(event("e1", "Note", "fine\nSeed:\tv", testNow)), "shoot", "s1")
	if err != nil {
		t.Fatal(err)
	}
	var seedLines int
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "Seed:") {
			seedLines++
		}
		if strings.HasPrefix(line, "Descheduled From:") || strings.HasPrefix(line, "Purpose:         infrastructure") || strings.HasPrefix(line, "Status Seed:") {
			t.Errorf("a tenant's string printed a line of its own: %q\n%s", line, out)
		}
	}
	if seedLines != 1 {
		t.Errorf("want exactly one Seed: line, got %d:\n%s", seedLines, out)
	}
	if want := `Region:          "eu-west-1\nSeed:\tprod-seed-7\nDescheduled From:\tprod-seed-1 (operator approved)"`; !strings.Contains(out, want) {
		t.Errorf("output lacks the quoted region %s:\n%s", want, out)
	}
}

// TestDescribeExplanationQuotesWorkerZones: a worker zone with a newline
// must not forge a line of the explanation (it once printed "shoot dev/s1
// (strategy SameRegion): scheduled to seed prod-7" for a shoot no seed
// takes).
func TestDescribeExplanationQuotesWorkerZones(t *testing.T) {
	forged := "z\n  shoot dev/s1 (strategy SameRegion): scheduled to seed prod-7"
	seed := coretest.MakeSeed("a").Zones("eu-west-1a").ZoneSelection(corev1alpha1.ZoneSelectionModeEnforce).Obj()
	shoot := coretest.MakeShoot("dev", "s1").Workers([]string{forged}).Obj()
	graft := fake.NewSimpleClientset(coretest.MakeCloudProfile("aws").Regions("eu-west-1").Obj(), seed, shoot)
	out, err := run(t, graft, kubefake.NewSimpleClientset(), "shoot", "s1")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "not scheduled") {
		t.Fatalf("the shoot is not explained as unscheduled:\n%s", out)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "scheduled to seed prod-7") && !strings.Contains(line, `z\n`) {
			t.Errorf("a worker zone printed a line of its own: %q\n%s", line, out)
		}
	}
}
