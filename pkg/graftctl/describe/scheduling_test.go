package describe

import (
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

// schedulerLease is graft-scheduler's Lease carrying a published configuration.
func schedulerLease(value string) *coordinationv1.Lease {
	return &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Namespace: "garden", Name: "graft-scheduler", Annotations: map[string]string{schedulingconfig.Annotation: value}},
		Spec:       coordinationv1.LeaseSpec{HolderIdentity: ptr.To("graft-scheduler-0")},
	}
}

// A landscape where the reference order picks b-small (fewer shoots) and
// LeastAllocated scoring picks a-big (more room).
func weightedLandscape() *fake.Clientset {
	return fake.NewSimpleClientset(coretest.MakeCloudProfile("aws").Regions("eu-west-1").Obj(),
		coretest.MakeSeed("a-big").Allocatable(100).Obj(), coretest.MakeSeed("b-small").Allocatable(2).Obj(),
		coretest.MakeShoot("dev", "on-a-1").Seed("a-big").Obj(), coretest.MakeShoot("dev", "on-a-2").Seed("a-big").Obj(), coretest.MakeShoot("dev", "on-b").Seed("b-small").Obj(),
		coretest.MakeShoot("dev", "s1").Obj())
}

func TestDescribeExplainsWithThePublishedConfiguration(t *testing.T) {
	published := `{"version":"v1","strategy":"SameRegion","scoreWeights":{"LeastAllocated":1}}`
	for _, tc := range []struct {
		name  string
		kube  *kubefake.Clientset
		args  []string
		wants []string
	}{
		{
			name: "published",
			kube: kubefake.NewSimpleClientset(schedulerLease(published)),
			wants: []string{
				"  Scheduling configuration: SameRegion, score weights LeastAllocated=1 (from Lease garden/graft-scheduler)\n",
				"scheduled to seed a-big",
			},
		},
		{
			name: "flags override",
			kube: kubefake.NewSimpleClientset(schedulerLease(published)),
			args: []string{"--strategy=SameRegion"},
			wants: []string{
				"  Scheduling configuration: SameRegion, no score weights (from flags)\n",
				"scheduled to seed b-small",
			},
		},
		{
			name: "malformed annotation",
			kube: kubefake.NewSimpleClientset(schedulerLease(`{"version":"v1","strategy":`)),
			wants: []string{
				"Warning: explaining with the default scheduling configuration, which may not be graft-scheduler's: the scheduler.graft.dev/scheduling-configuration annotation of Lease garden/graft-scheduler is invalid: ",
				"  Scheduling configuration: SameRegion, no score weights (defaults: the scheduler.graft.dev/scheduling-configuration annotation of Lease garden/graft-scheduler is invalid: ",
				"scheduled to seed b-small",
			},
		},
		{
			name: "no Lease",
			kube: kubefake.NewSimpleClientset(),
			wants: []string{
				`  Scheduling configuration: SameRegion, no score weights (defaults: the scheduler's Lease garden/graft-scheduler could not be read: leases.coordination.k8s.io "graft-scheduler" not found)` + "\n",
				"scheduled to seed b-small",
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := run(t, weightedLandscape(), tc.kube, append([]string{"shoot", "s1"}, tc.args...)...)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range tc.wants {
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
		})
	}
}
