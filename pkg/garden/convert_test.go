package garden

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

func gardenerYAML(t *testing.T, manifest string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(manifest), &u.Object); err != nil {
		t.Fatal(err)
	}
	return u
}

// A Gardener seed becomes graft's Seed: every taint keeps shoots off
// (NoSchedule), whatever effect or timeAdded the object carries, and the
// shoots it may hold are status.allocatable.shoots as gardenlet publishes it.
func TestFromGardenerSeed(t *testing.T) {
	obj, err := FromGardener(gardenerYAML(t, `
apiVersion: core.gardener.cloud/v1beta1
kind: Seed
metadata: {name: aws-eu1, resourceVersion: "42"}
spec:
  provider: {type: aws, region: eu-west-1}
  taints:
  - key: seed.gardener.cloud/protected
  - key: maintenance
    value: "true"
    effect: NoExecute
    timeAdded: "2026-01-01T00:00:00Z"
  - key: soft
    effect: PreferNoSchedule
status:
  allocatable:
    shoots: "250"
  capacity:
    shoots: "300"
`))
	if err != nil {
		t.Fatal(err)
	}
	seed, ok := obj.(*v1alpha1.Seed)
	if !ok {
		t.Fatalf("converted to %T, want *v1alpha1.Seed", obj)
	}
	if seed.APIVersion != v1alpha1.SchemeGroupVersion.String() || seed.Name != "aws-eu1" || seed.ResourceVersion != "42" {
		t.Errorf("type or object meta not carried over: %+v %+v", seed.TypeMeta, seed.ObjectMeta)
	}
	if len(seed.Spec.Taints) != 3 {
		t.Fatalf("taints %+v, want 3", seed.Spec.Taints)
	}
	for _, taint := range seed.Spec.Taints {
		if taint.Effect != v1alpha1.TaintEffectNoSchedule || taint.TimeAdded != nil {
			t.Errorf("taint %s: effect %q, timeAdded %v; want NoSchedule without timeAdded", taint.Key, taint.Effect, taint.TimeAdded)
		}
	}
	if got := seed.Status.Allocatable.Name(v1alpha1.ResourceShoots, "").Value(); got != 250 {
		t.Errorf("allocatable shoots = %d, want 250", got)
	}
}

// A Gardener shoot's tolerations match every taint of the key, for as long
// as it stays: Gardener knows neither effects nor tolerationSeconds.
func TestFromGardenerShoot(t *testing.T) {
	obj, err := FromGardener(gardenerYAML(t, `
apiVersion: core.gardener.cloud/v1beta1
kind: Shoot
metadata: {name: a, namespace: garden-dev}
spec:
  cloudProfile: {kind: CloudProfile, name: aws}
  region: eu-west-1
  schedulerName: graft-scheduler
  tolerations:
  - key: maintenance
    effect: NoExecute
    tolerationSeconds: 60
  provider: {type: aws}
`))
	if err != nil {
		t.Fatal(err)
	}
	shoot := obj.(*v1alpha1.Shoot)
	if shoot.Namespace != "garden-dev" || shoot.Spec.SchedulerName == nil || *shoot.Spec.SchedulerName != "graft-scheduler" {
		t.Errorf("shoot %+v", shoot)
	}
	if tol := shoot.Spec.Tolerations; len(tol) != 1 || tol[0].Key != "maintenance" || tol[0].Effect != "" || tol[0].TolerationSeconds != nil {
		t.Errorf("tolerations %+v, want maintenance for every effect and without tolerationSeconds", tol)
	}
}

func TestFromGardenerRefuses(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"other kind", "apiVersion: core.gardener.cloud/v1beta1\nkind: Project\nmetadata: {name: p}\n", "only Seeds, Shoots, CloudProfiles and NamespacedCloudProfiles"},
		{"other version", "apiVersion: core.gardener.cloud/v1\nkind: Seed\nmetadata: {name: s}\n", "is not core.gardener.cloud/v1beta1"},
		{"wrong type", "apiVersion: core.gardener.cloud/v1beta1\nkind: Seed\nmetadata: {name: s}\nspec: {taints: 3}\n", "Seed s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := FromGardener(gardenerYAML(t, tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}
func TestConvertReadsALiveGardenerObjectAsGrafts(t *testing.T) {
	var shoot v1alpha1.Shoot
	err := Convert([]byte(`{"apiVersion":"core.gardener.cloud/v1beta1","kind":"Shoot",
		"metadata":{"name":"a","namespace":"garden-dev","resourceVersion":"12"},
		"spec":{"cloudProfile":{"kind":"CloudProfile","name":"aws"},"region":"eu-west-1","seedName":"s1","networking":{"type":"calico"}}}`), &shoot)
	if err != nil {
		t.Fatal(err)
	}
	if shoot.APIVersion != "core.graft.dev/v1alpha1" || shoot.ResourceVersion != "12" || shoot.Spec.SeedName == nil || *shoot.Spec.SeedName != "s1" {
		t.Errorf("converted shoot %+v", shoot)
	}
	if err := Convert([]byte(`{"apiVersion":"core.gardener.cloud/v1beta1","kind":"Shoot","spec":{"region":3}}`), &shoot); err == nil || strings.HasPrefix(err.Error(), "json: ") {
		t.Errorf("wrongly typed field: error %v", err)
	}
}

// The informers' transform runs again on what it stored; it must leave it
// alone.
func TestInformerConversionIsIdempotent(t *testing.T) {
	seed, err := fromGardener(gardenerYAML(t, "apiVersion: core.gardener.cloud/v1beta1\nkind: Seed\nmetadata: {name: a}\n"))
	if err != nil {
		t.Fatal(err)
	}
	again, err := fromGardener(seed)
	if err != nil || again != seed {
		t.Errorf("the transform changed an object already converted: %v", err)
	}
}
