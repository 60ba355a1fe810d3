//go:build integration

package capacity

import (
	"context"
	"fmt"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/algorithm"
	"github.com/graft-dev/graft/pkg/coretest"
	"github.com/graft-dev/graft/pkg/schedulingconfig"
	"github.com/graft-dev/graft/test/framework"
)

// TestForecastOnGraftAPI runs the forecast on graft's API with the
// scheduling configuration a graft-scheduler leader publishes: a region of
// two seeds of pool blue holding two shoots each (capacity 2 from the
// configuration), five shoots created within the window, and a shoot that
// waits for capacity alone. The region and the pool are full, with one
// shoot waiting and five arrivals in the hour.
func TestForecastOnGraftAPI(t *testing.T) {
	ctx := context.Background()
	client := graft(t)
	region := name("fc")
	profile := coretest.MakeCloudProfile(name("fc-profile")).Regions(region).Obj()
	if _, err := client.CoreV1alpha1().CloudProfiles().Create(ctx, profile, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	lease := name("fc-scheduler")
	value, err := schedulingconfig.Encode(v1alpha1.DefaultSchedulerName, v1alpha1.GardenNamespace, algorithm.Config{Strategy: algorithm.StrategySameRegion})
	if err != nil {
		t.Fatal(err)
	}
	kube := framework.Shared(t).KubeClient()
	if _, err := kube.CoordinationV1().Leases(v1alpha1.GardenNamespace).Create(ctx, &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: lease, Annotations: map[string]string{schedulingconfig.Annotation: value}},
		Spec:       coordinationv1.LeaseSpec{HolderIdentity: ptr.To("graft-scheduler-leader")},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var seeds []string
	for range 2 {
		seed := coretest.MakeSeed(name("fc-seed")).Region(region).Label("pool", region).Obj()
		if _, err := client.CoreV1alpha1().Seeds().Create(ctx, seed, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = client.CoreV1alpha1().Seeds().Delete(context.Background(), seed.Name, metav1.DeleteOptions{})
		})
		setHealth(t, seed, v1alpha1.ConditionTrue, true)
		seeds = append(seeds, seed.Name)
	}
	ns := namespace(t)
	for i := range 4 {
		shoot := coretest.MakeShoot(ns, fmt.Sprintf("placed-%d", i)).CloudProfileName(profile.Name).Region(region).Workers([]string{"a"}).Seed(seeds[i%2]).Obj()
		if _, err := client.CoreV1alpha1().Shoots(ns).Create(ctx, shoot, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	waiting := coretest.MakeShoot(ns, "waiting").CloudProfileName(profile.Name).Region(region).Workers([]string{"a"}).Obj()
	if _, err := client.CoreV1alpha1().Shoots(ns).Create(ctx, waiting, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	inst := startAnnotator(t, func(c *configv1alpha1.CapacityAnnotatorConfiguration) {
		c.Overrides = []configv1alpha1.CapacityOverride{{
			SeedSelector: metav1.LabelSelector{MatchLabels: map[string]string{"pool": region}},
			Capacity:     shoots("2"),
		}}
		c.Forecast = configv1alpha1.ForecastConfiguration{Enabled: true, Period: metav1.Duration{Duration: 200 * time.Millisecond},
			Window: metav1.Duration{Duration: time.Hour}, Horizon: metav1.Duration{Duration: 2 * time.Hour},
			SchedulerLease: configv1alpha1.LeaseReference{Namespace: v1alpha1.GardenNamespace, Name: lease}}
		c.Pools = []configv1alpha1.SeedPool{{Name: "blue", SeedSelector: metav1.LabelSelector{MatchLabels: map[string]string{"pool": region}}}}
	})
	// The waiting shoot first: SetPools publishes every series of a forecast
	// at once, so the zeros below are read, not missing series.
	for _, want := range []struct {
		metric, kind, pool string
		value              float64
	}{
		{"graft_capacity_pool_waiting_shoots", "region", region, 1},
		{"graft_capacity_pool_waiting_shoots", "pool", "blue", 1},
		{"graft_capacity_pool_free_shoots", "pool", "blue", 0},
		{"graft_capacity_pool_arrivals_per_hour", "pool", "blue", 5},
		{"graft_capacity_pool_full_in_seconds", "region", region, 0},
		{"graft_capacity_pool_full_within_horizon", "pool", "blue", 1},
		{"graft_capacity_pool_utilisation_ratio", "pool", "blue", 1},
	} {
		framework.WaitFor(t, fmt.Sprintf("%s{kind=%s,pool=%s} %v", want.metric, want.kind, want.pool, want.value), waitTimeout, func(context.Context) (bool, error) {
			v, err := framework.GatheredSum(inst.registry.Gather, want.metric, map[string]string{"kind": want.kind, "pool": want.pool})
			return err == nil && v == want.value, nil
		})
	}
}
