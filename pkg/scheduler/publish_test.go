package scheduler

import (
	"context"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"

	graftfake "github.com/graft-dev/client-go/clientset/versioned/fake"
	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/pkg/component"
	"github.com/graft-dev/graft/pkg/schedulingconfig"
)

func schedulerWithLease(t *testing.T, holder string, mutate func(*configv1alpha1.SchedulerConfiguration)) (*Scheduler, *kubefake.Clientset) {
	t.Helper()
	kube := kubefake.NewSimpleClientset(&coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Namespace: "garden", Name: "graft-scheduler", ResourceVersion: "3"},
		Spec:       coordinationv1.LeaseSpec{HolderIdentity: ptr.To(holder)},
	})
	cfg := &configv1alpha1.SchedulerConfiguration{
		Strategy:     configv1alpha1.StrategyMinimalDistance,
		ScoreWeights: &configv1alpha1.ScoreWeights{LeastAllocated: ptr.To[int32](3), PreferNoSchedule: ptr.To[int32](0)},
	}
	cfg.Server.HealthProbeBindAddress = configv1alpha1.DisabledBindAddress
	cfg.Server.MetricsBindAddress = configv1alpha1.DisabledBindAddress
	if mutate != nil {
		mutate(cfg)
	}
	cfg.Default()
	s, err := New(cfg, component.Clients{Graft: graftfake.NewSimpleClientset(), Kubernetes: kube}, Options{Identity: "replica-1"})
	if err != nil {
		t.Fatal(err)
	}
	return s, kube
}

func leaseWrites(kube *kubefake.Clientset) int {
	n := 0
	for _, a := range kube.Actions() {
		if a.GetResource().Resource == "leases" && a.GetVerb() != "get" {
			n++
		}
	}
	return n
}

func TestPublishConfigurationOnTheLeaseItLeadsWith(t *testing.T) {
	s, kube := schedulerWithLease(t, "replica-1", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s.publishConfiguration(ctx)
	lease, err := kube.CoordinationV1().Leases("garden").Get(ctx, "graft-scheduler", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"version":"v1","schedulerName":"default-scheduler","strategy":"MinimalDistance","scoreWeights":{"LeastAllocated":3,"PreferNoSchedule":0},"regionConfigNamespace":"garden"}`
	if got := lease.Annotations[schedulingconfig.Annotation]; got != want {
		t.Errorf("published %s, want %s", got, want)
	}
}

func TestPublishConfigurationNotOnAnotherReplicasLease(t *testing.T) {
	s, kube := schedulerWithLease(t, "replica-2", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s.publishConfiguration(ctx)
	if ctx.Err() != nil {
		t.Fatal("publishConfiguration did not give up on a Lease held by another replica")
	}
	if n := leaseWrites(kube); n != 0 {
		t.Errorf("%d Lease writes", n)
	}
}

func TestPublishConfigurationWithoutLeaderElection(t *testing.T) {
	s, kube := schedulerWithLease(t, "replica-1", func(c *configv1alpha1.SchedulerConfiguration) { c.LeaderElection.LeaderElect = ptr.To(false) })
	s.publishConfiguration(context.Background())
	if len(kube.Actions()) != 0 {
		t.Errorf("without leader election the Lease was used: %v", kube.Actions())
	}
}

func TestNewGivesTheReplicaAnIdentity(t *testing.T) {
	cfg := &configv1alpha1.SchedulerConfiguration{}
	cfg.Server.HealthProbeBindAddress = configv1alpha1.DisabledBindAddress
	cfg.Server.MetricsBindAddress = configv1alpha1.DisabledBindAddress
	cfg.Default()
	s, err := New(cfg, component.Clients{Graft: graftfake.NewSimpleClientset(), Kubernetes: kubefake.NewSimpleClientset()}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.runner.Elector.Identity == "" {
		t.Error("no identity to compare the Lease's holder with")
	}
}
