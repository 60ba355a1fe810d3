package descheduler

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	"k8s.io/component-base/metrics"

	"github.com/graft-dev/client-go/clientset/versioned/fake"
	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/pkg/component"
	"github.com/graft-dev/graft/pkg/coretest"
)

// TestRegionConfigMapsOnlyFromTheirNamespace: requireFit asks the algorithm
// with the region ConfigMap of the configured namespace only; one in a project
// namespace, whose name sorts first, is not seen.
func TestRegionConfigMapsOnlyFromTheirNamespace(t *testing.T) {
	regionCM := func(namespace, name string) *corev1.ConfigMap {
		return coretest.RegionConfigMap(namespace, name, "aws", map[string]string{"eu-west-1": "us-east-1: 1\n"})
	}
	for _, tc := range []struct {
		namespace string
		want      string
	}{{"", "garden/regions"}, {"garden-ops", "garden-ops/regions"}} {
		kube := kubefake.NewSimpleClientset(regionCM("garden-dev", "a-steer"), regionCM("garden", "regions"), regionCM("garden-ops", "regions"))
		cfg := &configv1alpha1.DeschedulerConfiguration{RegionConfigNamespace: tc.namespace}
		defaultResolved(cfg)
		d, err := New(cfg, component.Clients{Graft: fake.NewSimpleClientset(cloudProfile()), Kubernetes: kube}, Options{Registry: metrics.NewKubeRegistry()})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		d.informers.Start(ctx.Done())
		d.regionConfigs.Start(ctx.Done())
		if !cache.WaitForCacheSync(ctx.Done(), d.synced...) {
			t.Fatal("informers did not sync")
		}
		shoot := coretest.MakeShoot("garden-dev", "s").CloudProfileName("aws").Obj()
		in := d.inputs(shoot)
		if got := in.RegionConfig; got == nil || got.Source != tc.want {
			t.Errorf("regionConfigNamespace %q: region ConfigMap %v, want %s", tc.namespace, got, tc.want)
		}
		cancel()
		d.queue.ShutDown()
		d.informers.Shutdown()
		d.regionConfigs.Shutdown()
	}

	cfg := &configv1alpha1.DeschedulerConfiguration{}
	defaultResolved(cfg)
	cfg.RegionConfigNamespace = ""
	if _, err := New(cfg, component.Clients{Graft: fake.NewSimpleClientset(), Kubernetes: kubefake.NewSimpleClientset()}, Options{Registry: metrics.NewKubeRegistry()}); err == nil {
		t.Fatal("New accepted an empty regionConfigNamespace, which would watch every namespace")
	}
}
