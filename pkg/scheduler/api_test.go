package scheduler

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kubefake "k8s.io/client-go/kubernetes/fake"

	graftfake "github.com/graft-dev/client-go/clientset/versioned/fake"
	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/component"
	"github.com/graft-dev/graft/pkg/coretest"
)

func gardenerSeed(name string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "core.gardener.cloud/v1beta1",
		"kind":       "Seed",
		"metadata":   map[string]any{"name": name, "resourceVersion": "7"},
		"spec": map[string]any{
			"provider": map[string]any{"type": "aws", "region": "eu-west-1"},
			"taints":   []any{map[string]any{"key": "seed.gardener.cloud/protected"}},
		},
		"status": map[string]any{"allocatable": map[string]any{"shoots": "3"}},
	}}
}

// On Gardener, the informers hold graft's types converted from Gardener's
// objects, still naming Gardener's apiVersion (for the Events about them),
// and graft's listers read them.
func TestGardenerInformersHoldGraftTypes(t *testing.T) {
	dyn := coretest.FakeGardener(gardenerSeed("a"), gardenerProject("team", "garden-team-ns"), gardenerProject("b-team", "garden-b"))
	cfg := &configv1alpha1.SchedulerConfiguration{API: configv1alpha1.APIGardener}
	cfg.Server.HealthProbeBindAddress = configv1alpha1.DisabledBindAddress
	cfg.Server.MetricsBindAddress = configv1alpha1.DisabledBindAddress
	cfg.Default()
	s, err := New(cfg, component.Clients{Kubernetes: kubefake.NewSimpleClientset()}, Options{Gardener: dyn})
	if err != nil {
		t.Fatal(err)
	}
	startSynced(t, s)
	obj, ok, err := s.informers.Seeds().Informer.GetStore().GetByKey("a")
	if err != nil || !ok {
		t.Fatalf("seed a not in the store: %v", err)
	}
	seed, ok := obj.(*corev1alpha1.Seed)
	if !ok {
		t.Fatalf("the store holds a %T, want *v1alpha1.Seed", obj)
	}
	if seed.APIVersion != "core.gardener.cloud/v1beta1" || seed.Kind != "Seed" {
		t.Errorf("converted seed names %s %s, want Gardener's apiVersion and kind", seed.APIVersion, seed.Kind)
	}
	if len(seed.Spec.Taints) != 1 || seed.Spec.Taints[0].Effect != corev1alpha1.TaintEffectNoSchedule {
		t.Errorf("taints %+v, want the one taint as NoSchedule", seed.Spec.Taints)
	}
	if got := s.cache.seedResourceVersion("a"); got != "7" {
		t.Errorf("the scheduling cache holds seed a at resourceVersion %q, want 7", got)
	}

	// The default-domain rule's project: the Project whose spec.namespace
	// the shoot's namespace is, not the namespace's name.
	for ns, want := range map[string]string{"garden-team-ns": "team", "garden-b": "b-team", "garden-none": ""} {
		if got := s.informers.Project(ns); got != want {
			t.Errorf("project of namespace %s = %q, want %q", ns, got, want)
		}
	}

}

func TestNewRefusesUnknownAPI(t *testing.T) {
	cfg := &configv1alpha1.SchedulerConfiguration{}
	cfg.Default()
	cfg.API = "core.example.com"
	_, err := New(cfg, component.Clients{Graft: graftfake.NewSimpleClientset(), Kubernetes: kubefake.NewSimpleClientset()}, Options{})
	if err == nil || !strings.Contains(err.Error(), "core.example.com") {
		t.Errorf("New with api core.example.com: %v, want an error naming it", err)
	}

	cfg.API = configv1alpha1.APIGardener
	_, err = New(cfg, component.Clients{Graft: graftfake.NewSimpleClientset(), Kubernetes: kubefake.NewSimpleClientset()}, Options{})
	if err == nil || !strings.Contains(err.Error(), "dynamic client") {
		t.Errorf("New on Gardener without a dynamic client: %v, want an error saying so", err)
	}
}

// Every informer of the scheduler, on either API, stores shoots without the
// managed fields no code path reads (cachetrim), after Gardener's
// conversion; region ConfigMaps too.
func TestInformersStoreTrimmedObjects(t *testing.T) {
	managed := []any{map[string]any{"manager": "gardenlet", "operation": "Update", "fieldsType": "FieldsV1", "fieldsV1": map[string]any{"f:status": map[string]any{}}}}
	gardenerShoot := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "core.gardener.cloud/v1beta1", "kind": "Shoot",
		"metadata": map[string]any{"name": "s", "namespace": "garden-dev", "resourceVersion": "8", "managedFields": managed},
		"spec":     map[string]any{"provider": map[string]any{"type": "aws"}, "region": "eu-west-1"},
	}}
	graftShoot := &corev1alpha1.Shoot{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "garden-dev",
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "gardenlet", Operation: metav1.ManagedFieldsOperationUpdate}}}}
	regions := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "regions", Namespace: "garden",
		Labels:        map[string]string{corev1alpha1.LabelSchedulingPurpose: corev1alpha1.LabelSchedulingPurposeRegionConfig},
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply}}}}

	for _, api := range []configv1alpha1.SchedulerAPI{configv1alpha1.APIGraft, configv1alpha1.APIGardener} {
		t.Run(string(api), func(t *testing.T) {
			cfg := &configv1alpha1.SchedulerConfiguration{API: api}
			cfg.Server.HealthProbeBindAddress = configv1alpha1.DisabledBindAddress
			cfg.Server.MetricsBindAddress = configv1alpha1.DisabledBindAddress
			cfg.Default()
			clients := component.Clients{
				Graft:      graftfake.NewSimpleClientset(graftShoot.DeepCopy()),
				Kubernetes: kubefake.NewSimpleClientset(regions.DeepCopy()),
			}
			s, err := New(cfg, clients, Options{Gardener: coretest.FakeGardener(gardenerShoot.DeepCopy())})
			if err != nil {
				t.Fatal(err)
			}
			startSynced(t, s)
			shoot, err := s.shootLister.Shoots("garden-dev").Get("s")
			if err != nil {
				t.Fatal(err)
			}
			if shoot.ManagedFields != nil {
				t.Errorf("the shoot store keeps managed fields: %+v", shoot.ManagedFields)
			}
			cm, err := s.regionConfigs.Lister().ConfigMaps("garden").Get("regions")
			if err != nil {
				t.Fatal(err)
			}
			if cm.ManagedFields != nil {
				t.Errorf("the region ConfigMap store keeps managed fields: %+v", cm.ManagedFields)
			}
		})
	}
}

func gardenerProject(name, namespace string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "core.gardener.cloud/v1beta1", "kind": "Project",
		"metadata": map[string]any{"name": name, "resourceVersion": "3", "labels": map[string]any{"dropped": "yes"}},
		"spec":     map[string]any{"namespace": namespace, "owner": map[string]any{"kind": "User", "name": "someone"}},
	}}
}
