//go:build integration

package admission

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/graft-dev/graft/pkg/controlplane"
	"github.com/graft-dev/graft/pkg/coretest"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/component"
	schedulerpkg "github.com/graft-dev/graft/pkg/scheduler"
	"github.com/graft-dev/graft/test/framework"
)

// TestSchedulerUsesProtectedSeedsForGardenShootsOnly runs graft-scheduler as
// its chart's ServiceAccount against one protected seed: it binds a garden
// shoot that has no toleration of its own (the policy is allowed to let it),
// and leaves a tenant's shoot pending, saying that the seed is protected.
func TestSchedulerUsesProtectedSeedsForGardenShootsOnly(t *testing.T) {
	ctx := t.Context()
	c := admin(t)
	const provider = "admission-placement"
	ns := newNamespace(t, "tenant-placement")

	cp := &v1alpha1.CloudProfile{ObjectMeta: metav1.ObjectMeta{Name: provider}, Spec: v1alpha1.CloudProfileSpec{Type: provider}}
	if _, err := c.CoreV1alpha1().CloudProfiles().Create(ctx, cp, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	now := metav1.Now()
	seed := coretest.MakeSeed(provider+"-protected").Provider(provider, "r1").Taint(v1alpha1.SeedTaintProtected, nil, "").Obj()
	created, err := c.CoreV1alpha1().Seeds().Create(ctx, seed, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	created.Status = v1alpha1.SeedStatus{
		LastOperation: &v1alpha1.LastOperation{Type: v1alpha1.LastOperationTypeReconcile, State: v1alpha1.LastOperationStateSucceeded, Description: "ok", LastUpdateTime: now},
		Conditions: []v1alpha1.Condition{{
			Type: v1alpha1.SeedGardenletReady, Status: v1alpha1.ConditionTrue, LastTransitionTime: now, LastUpdateTime: now, Reason: "Ready", Message: "ready",
		}},
		Allocatable: corev1.ResourceList{v1alpha1.ResourceShoots: *resource.NewQuantity(10, resource.DecimalSI)},
	}
	if _, err := c.CoreV1alpha1().Seeds().UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	// graft-scheduler as the ServiceAccount its chart creates.
	cfg := &configv1alpha1.SchedulerConfiguration{}
	cfg.LeaderElection.LeaderElect = ptr.To(false)
	cfg.Server.HealthProbeBindAddress = "127.0.0.1:0"
	cfg.Server.MetricsBindAddress = "127.0.0.1:0"
	cfg.Default()
	if errs := cfg.Validate(); len(errs) > 0 {
		t.Fatal(errs.ToAggregate())
	}
	clients, err := component.NewClients(component.ApplyClientConnection(componentConfig(t, controlplane.ComponentNamespace, scheduler), cfg.ClientConnection), "admission-test-scheduler")
	if err != nil {
		t.Fatal(err)
	}
	s, err := schedulerpkg.New(cfg, clients, schedulerpkg.Options{Identity: "admission-test-scheduler"})
	if err != nil {
		t.Fatal(err)
	}
	framework.RunUntilCleanup(t, "scheduler", s.Run)

	placed := func(namespace, name string) *v1alpha1.Shoot {
		return coretest.MakeShoot(namespace, name).CloudProfileName(provider).Provider(provider, "r1").Obj()
	}
	tenantShoot := placed(ns, "web")
	tenantShoot.Spec.Tolerations = []v1alpha1.Toleration{{Key: "dedicated"}}
	if _, err := create(ctx, tenantClient(t, ns), tenantShoot, false); err != nil {
		t.Fatal(err)
	}
	gardenShoot := placed(v1alpha1.GardenNamespace, "infra")
	if _, err := create(ctx, c, gardenShoot, false); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.CoreV1alpha1().Shoots(v1alpha1.GardenNamespace).Delete(context.Background(), "infra", metav1.DeleteOptions{})
	})

	framework.WaitFor(t, "the garden shoot to be bound to the protected seed", time.Minute, func(ctx context.Context) (bool, error) {
		got, err := c.CoreV1alpha1().Shoots(v1alpha1.GardenNamespace).Get(ctx, "infra", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return ptrValue(got.Spec.SeedName) == seed.Name, nil
	})
	framework.WaitFor(t, "the tenant's shoot to be reported unschedulable because the seed is protected", time.Minute, func(ctx context.Context) (bool, error) {
		got, err := c.CoreV1alpha1().Shoots(ns).Get(ctx, "web", metav1.GetOptions{})
		if err != nil || got.Status.LastOperation == nil {
			return false, err
		}
		if got.Spec.SeedName != nil {
			t.Fatalf("tenant's shoot bound to %s", *got.Spec.SeedName)
		}
		return strings.Contains(got.Status.LastOperation.Description, seed.Name+" => shoot does not tolerate the seed's taints (seed.gardener.cloud/protected:NoSchedule); seed is protected: it is for shoots in namespace garden and those whose project may tolerate seed.gardener.cloud/protected"), nil
	})
}
