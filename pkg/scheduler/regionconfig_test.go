package scheduler

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/ptr"

	graftfake "github.com/graft-dev/client-go/clientset/versioned/fake"
	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/pkg/component"
	"github.com/graft-dev/graft/pkg/coretest"
)

// regionConfigMapIn is a region ConfigMap for the aws profile that puts
// us-east-1 next to eu-west-1 and eu-central-1 far away, the opposite of the
// Levenshtein fallback (2 and 6).
func regionConfigMapIn(namespace, name string) *corev1.ConfigMap {
	return coretest.RegionConfigMap(namespace, name, "aws", map[string]string{"eu-west-1": "us-east-1: 1\neu-central-1: 10\n"})
}

// TestRegionConfigMapsOnlyFromTheirNamespace: a region ConfigMap in a project
// namespace (even one whose name sorts first) does not change a decision; the
// same ConfigMap in the configured namespace does.
func TestRegionConfigMapsOnlyFromTheirNamespace(t *testing.T) {
	for _, tc := range []struct {
		name       string
		namespace  string // regionConfigNamespace; empty: the default
		configMaps []*corev1.ConfigMap
		want       string
	}{
		{"tenant ConfigMap ignored", "", []*corev1.ConfigMap{regionConfigMapIn("garden-dev", "a-steer")}, "near"},
		{"garden ConfigMap used", "", []*corev1.ConfigMap{regionConfigMapIn("garden", "regions")}, "far"},
		{"configured namespace used", "garden-ops", []*corev1.ConfigMap{regionConfigMapIn("garden-ops", "regions"), regionConfigMapIn("garden", "a-regions")}, "far"},
		{"default namespace ignored when another is configured", "garden-ops", []*corev1.ConfigMap{regionConfigMapIn("garden", "regions")}, "near"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			shoot := coretest.MakeShoot("garden-dev", "s").Region("eu-west-1").CloudProfileName("aws").ResourceVersion("1").Obj()
			shoot.ResourceVersion = ""
			graft := graftfake.NewSimpleClientset(coretest.MakeSeed("near").Region("eu-central-1").Allocatable(-1).Obj(), coretest.MakeSeed("far").Region("us-east-1").Allocatable(-1).Obj(), coretest.MakeCloudProfile("aws").Obj(), shoot)
			kube := kubefake.NewSimpleClientset()
			for _, cm := range tc.configMaps {
				if _, err := kube.CoreV1().ConfigMaps(cm.Namespace).Create(context.Background(), cm, metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			cfg := &configv1alpha1.SchedulerConfiguration{Strategy: configv1alpha1.StrategyMinimalDistance, RegionConfigNamespace: tc.namespace}
			cfg.Server.HealthProbeBindAddress = configv1alpha1.DisabledBindAddress
			cfg.Server.MetricsBindAddress = configv1alpha1.DisabledBindAddress
			cfg.Default()
			s, err := New(cfg, component.Clients{Graft: graft, Kubernetes: kube}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			s.recorder = record.NewFakeRecorder(100)
			startSynced(t, s)
			ctx := t.Context()
			if err := s.syncHandler(ctx, "garden-dev/s"); err != nil {
				t.Fatal(err)
			}
			got, err := graft.CoreV1alpha1().Shoots("garden-dev").Get(ctx, "s", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if seed := ptr.Deref(got.Spec.SeedName, ""); seed != tc.want {
				t.Errorf("scheduled to %q, want %q", seed, tc.want)
			}
		})
	}
}

func TestNewRefusesAllNamespaces(t *testing.T) {
	cfg := &configv1alpha1.SchedulerConfiguration{}
	cfg.Default()
	cfg.RegionConfigNamespace = ""
	if _, err := New(cfg, component.Clients{Graft: graftfake.NewSimpleClientset(), Kubernetes: kubefake.NewSimpleClientset()}, Options{}); err == nil {
		t.Fatal("New accepted an empty regionConfigNamespace, which would watch every namespace")
	}
}
