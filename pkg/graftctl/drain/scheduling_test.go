package drain

import (
	"context"
	"strings"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"

	"github.com/graft-dev/client-go/clientset/versioned/fake"

	"github.com/graft-dev/graft/pkg/coretest"
	"github.com/graft-dev/graft/pkg/schedulingconfig"
)

// A drained seed whose shoot goes to b-small in the reference order (fewer
// shoots) and to a-big with LeastAllocated scoring (more room).
func weightedLandscape() *fake.Clientset {
	return fake.NewSimpleClientset(coretest.MakeCloudProfile("aws").Regions("eu-west-1").Obj(),
		coretest.MakeSeed("a-big").Allocatable(100).Obj(), coretest.MakeSeed("b-small").Allocatable(2).Obj(), coretest.MakeSeed("z").Allocatable(100).Obj(),
		coretest.MakeShoot("ns", "on-a-1").Seed("a-big").Obj(), coretest.MakeShoot("ns", "on-a-2").Seed("a-big").Obj(), coretest.MakeShoot("ns", "on-b").Seed("b-small").Obj(),
		coretest.MakeShoot("ns", "s1").Seed("z").Obj())
}

func TestDryRunPlacesWithThePublishedConfiguration(t *testing.T) {
	lease := &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Namespace: "graft-system", Name: "sched", Annotations: map[string]string{
			schedulingconfig.Annotation: `{"version":"v1","strategy":"SameRegion","scoreWeights":{"LeastAllocated":1}}`,
		}},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To("graft-scheduler-0")},
	}
	leaseFlags := []string{"--scheduler-lease-namespace=graft-system", "--scheduler-lease-name=sched"}
	for _, tc := range []struct {
		name              string
		args              []string
		wantLine, wantErr string
		wantSeed          string
	}{
		{"published", nil, "Scheduling configuration: SameRegion, score weights LeastAllocated=1 (from Lease graft-system/sched)\n", "", "a-big"},
		{"flags override", []string{"--strategy=SameRegion"}, "Scheduling configuration: SameRegion, no score weights (from flags)\n", "", "b-small"},
		{"weights from flags", []string{"--score-weight=LeastAllocated=2"}, "Scheduling configuration: SameRegion, score weights LeastAllocated=2 (from flags)\n", "", "a-big"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append(append([]string{"z", "--dry-run"}, leaseFlags...), tc.args...)
			out, errOut, err := run(context.Background(), weightedLandscape(), kubefake.NewSimpleClientset(lease), args...)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{tc.wantLine, "shoot/ns/s1 would move to seed/" + tc.wantSeed + "\n"} {
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
			if errOut != "" {
				t.Errorf("stderr: %s", errOut)
			}
		})
	}
}

func TestDryRunWarnsAboutAnInvalidPublishedConfiguration(t *testing.T) {
	lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: "garden", Name: "graft-scheduler", Annotations: map[string]string{
		schedulingconfig.Annotation: `{"version":"v9"}`,
	}}}
	out, errOut, err := run(context.Background(), weightedLandscape(), kubefake.NewSimpleClientset(lease), "z", "--dry-run")
	if err != nil {
		t.Fatal(err)
	}
	why := `the scheduler.graft.dev/scheduling-configuration annotation of Lease garden/graft-scheduler is invalid: version "v9", this build reads "v1"`
	if want := "Scheduling configuration: SameRegion, no score weights (defaults: " + why + ")\n"; !strings.Contains(out, want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
	if !strings.Contains(out, "shoot/ns/s1 would move to seed/b-small\n") {
		t.Errorf("not placed with the defaults:\n%s", out)
	}
	if want := "Warning: explaining with the default scheduling configuration, which may not be graft-scheduler's: " + why + "\n"; errOut != want {
		t.Errorf("stderr %q, want %q", errOut, want)
	}
}
