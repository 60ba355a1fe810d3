//go:build integration

package charts

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/clientcmd"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/component"
	"github.com/graft-dev/graft/pkg/descheduler"
	"github.com/graft-dev/graft/pkg/scheduler"
	"github.com/graft-dev/graft/pkg/schedulingconfig"
	"github.com/graft-dev/graft/test/framework"
)

// TestSchedulerChartLetsItPublishOnItsLease runs graft-scheduler as the
// chart's ServiceAccount, with the chart's RBAC and rendered configuration,
// and waits for the scheduling configuration on its Lease: the lease Role
// must allow that write. graft-descheduler, as its chart's ServiceAccount,
// must then be allowed to read it.
func TestSchedulerChartLetsItPublishOnItsLease(t *testing.T) {
	env := framework.Shared(t)
	ctx := t.Context()
	const ns, lease = "chart-sched-lease", "chart-sched-lease"
	if _, err := env.KubeClient().CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	config, err := RunAsChart(ctx, env.Config(), "graft-scheduler", TemplateOptions{Release: "chart-sched-lease", Namespace: ns, Set: []string{
		"config.leaderElection.resourceName=" + lease,
		"config.strategy=MinimalDistance",
		"config.scoreWeights.leastAllocated=3",
	}}, kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := component.DecodeConfig[*configv1alpha1.SchedulerConfiguration]([]byte(config))
	if err != nil {
		t.Fatal(err)
	}
	// The test process serves no endpoints; everything else is the chart's.
	cfg.Server.HealthProbeBindAddress = configv1alpha1.DisabledBindAddress
	cfg.Server.MetricsBindAddress = configv1alpha1.DisabledBindAddress
	restConfig, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	clients, err := component.NewClients(component.ApplyClientConnection(restConfig, cfg.ClientConnection), scheduler.Name)
	if err != nil {
		t.Fatal(err)
	}
	s, err := scheduler.New(cfg, clients, scheduler.Options{Identity: "chart-sched-lease-0"})
	if err != nil {
		t.Fatal(err)
	}
	framework.RunUntilCleanup(t, "scheduler", s.Run)

	want := `{"version":"v1","schedulerName":"default-scheduler","strategy":"MinimalDistance","scoreWeights":{"LeastAllocated":3},"regionConfigNamespace":"garden"}`
	var got string
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		l, err := env.KubeClient().CoordinationV1().Leases(corev1alpha1.GardenNamespace).Get(ctx, lease, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		got = l.Annotations[schedulingconfig.Annotation]
		return got == want, nil
	})
	if err != nil {
		t.Fatalf("Lease %s/%s carries %q, want %s: %v", corev1alpha1.GardenNamespace, lease, got, want, err)
	}

	// graft-descheduler, as its chart's ServiceAccount with the chart's
	// configuration, takes that configuration from the Lease.
	deschedulerKubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	dconfig, err := RunAsChart(ctx, env.Config(), "graft-descheduler", TemplateOptions{Release: "chart-desched-lease", Namespace: ns, Set: []string{
		"config.schedulerLease.name=" + lease,
	}}, deschedulerKubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	dcfg, err := component.DecodeConfig[*configv1alpha1.DeschedulerConfiguration]([]byte(dconfig))
	if err != nil {
		t.Fatal(err)
	}
	dRestConfig, err := clientcmd.BuildConfigFromFlags("", deschedulerKubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	dclients, err := component.NewClients(component.ApplyClientConnection(dRestConfig, dcfg.ClientConnection), descheduler.Name)
	if err != nil {
		t.Fatal(err)
	}
	resolved, err := descheduler.ResolveSchedulingConfiguration(ctx, dcfg, dclients.Lease.CoordinationV1())
	if err != nil {
		t.Fatal(err)
	}
	if got := schedulingconfig.Describe(schedulingconfig.FromComponentConfig(resolved.Strategy, resolved.ScoreWeights)); got != "MinimalDistance, score weights LeastAllocated=3" {
		t.Errorf("the descheduler resolved %s from the scheduler's Lease, want MinimalDistance, score weights LeastAllocated=3", got)
	}
}
