//go:build integration

package scheduler

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/coretest"
)

// TestRegionConfigMapInTenantNamespaceIsIgnored: a region ConfigMap in a
// project namespace, whose name sorts before any other, does not change where
// a MinimalDistance scheduler places a shoot; the same ConfigMap in garden
// does.
func TestRegionConfigMapInTenantNamespaceIsIgnored(t *testing.T) {
	f := newFixture(t)
	ensureNamespace(t, v1alpha1.GardenNamespace)
	// By the Levenshtein fallback eu-central-1 is at 2 from eu-west-1 and
	// us-east-1 at 6; the ConfigMap turns that around.
	f.createSeed("near", "eu-central-1", nil, nil)
	f.createSeed("far", "us-east-1", nil, nil)
	regionCM := func(namespace, name string) *corev1.ConfigMap {
		return coretest.RegionConfigMap(namespace, name, f.name, map[string]string{"eu-west-1": "us-east-1: 1\neu-central-1: 10\n"})
	}
	cms := f.env.KubeClient().CoreV1()
	if _, err := cms.ConfigMaps(f.ns).Create(f.ctx, regionCM(f.ns, "a-steer"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	// The scheduler starts after the tenant's ConfigMap exists and schedules
	// only once its informers have listed what exists: had it any way to see
	// the ConfigMap, the first decision would already use it.
	startScheduler(t, "sched-region-namespace", func(c *configv1alpha1.SchedulerConfiguration) {
		c.Strategy = configv1alpha1.StrategyMinimalDistance
	})
	f.createShoot(f.newShoot("tenant", "eu-west-1"))
	if got, want := f.waitForSeed("tenant", 30*time.Second), f.name+"-near"; got != want {
		t.Fatalf("with a region ConfigMap in project namespace %s: seed %s, want %s (the Levenshtein fallback)", f.ns, got, want)
	}

	// The same ConfigMap in garden is the scheduler's. Its informer sees it
	// some time after the create: place fresh shoots until one shows it (each
	// attempt waits for a binding, the fact that the decision was made).
	gardenName := f.name + "-regions"
	if _, err := cms.ConfigMaps(v1alpha1.GardenNamespace).Create(f.ctx, regionCM(v1alpha1.GardenNamespace, gardenName), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cms.ConfigMaps(v1alpha1.GardenNamespace).Delete(f.ctx, gardenName, metav1.DeleteOptions{})
	})
	var got string
	for i := range 30 {
		name := fmt.Sprintf("garden-%d", i)
		f.createShoot(f.newShoot(name, "eu-west-1"))
		if got = f.waitForSeed(name, 30*time.Second); got == f.name+"-far" {
			break
		}
	}
	if want := f.name + "-far"; got != want {
		t.Errorf("with the region ConfigMap in garden: seed %s, want %s (distance 1 in the ConfigMap)", got, want)
	}
}
