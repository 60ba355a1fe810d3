package garden

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"
)

// convertedYAML converts the Gardener object of the manifest, failing the
// test when it does not convert.
func convertedYAML(t *testing.T, manifest string) runtime.Object {
	t.Helper()
	obj, err := FromGardener(gardenerYAML(t, manifest))
	if err != nil {
		t.Fatal(err)
	}
	return obj
}

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
	obj := convertedYAML(t, `
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
`)
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
	obj := convertedYAML(t, `
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
`)
	shoot := obj.(*v1alpha1.Shoot)
	if shoot.Namespace != "garden-dev" || shoot.Spec.SchedulerName == nil || *shoot.Spec.SchedulerName != "graft-scheduler" {
		t.Errorf("shoot %+v", shoot)
	}
	if tol := shoot.Spec.Tolerations; len(tol) != 1 || tol[0].Key != "maintenance" || tol[0].Effect != "" || tol[0].TolerationSeconds != nil {
		t.Errorf("tolerations %+v, want maintenance for every effect and without tolerationSeconds", tol)
	}
}

// Gardener calls the hibernation it reports status.hibernated (graft's
// status.isHibernated): a hibernated Gardener shoot is hibernated to graft,
// read from an informer's map or from a file alike.
func TestFromGardenerHibernatedShoot(t *testing.T) {
	const manifest = `
apiVersion: core.gardener.cloud/v1beta1
kind: Shoot
metadata: {name: a, namespace: garden-dev}
spec:
  hibernation: {enabled: true}
status:
  hibernated: true
`
	shoot := convertedYAML(t, manifest).(*v1alpha1.Shoot)
	if !helper.ShootHibernated(shoot) {
		t.Errorf("status %+v: not hibernated", shoot.Status)
	}
	data, err := yaml.YAMLToJSON([]byte(manifest))
	if err != nil {
		t.Fatal(err)
	}
	var fromFile v1alpha1.Shoot
	if err := Convert(data, &fromFile); err != nil {
		t.Fatal(err)
	}
	if !helper.ShootHibernated(&fromFile) {
		t.Errorf("converted from JSON, status %+v: not hibernated", fromFile.Status)
	}
	// A list, as the informers decode it: each item its own.
	list := []byte(`{"apiVersion":"core.gardener.cloud/v1beta1","kind":"ShootList","items":[` +
		`{"metadata":{"name":"awake"},"status":{"hibernated":false}},{"metadata":{"name":"asleep"},"status":{"hibernated":true}}]}`)
	var shoots v1alpha1.ShootList
	if err := Convert(list, &shoots); err != nil {
		t.Fatal(err)
	}
	if len(shoots.Items) != 2 || shoots.Items[0].Status.IsHibernated || !shoots.Items[1].Status.IsHibernated {
		t.Errorf("list items %+v, want only the second hibernated", shoots.Items)
	}
}

// Gardener 1.150's zone pinning reads through: the shoot's pinned zones and
// the cloud profile's consent to them.
func TestFromGardenerZonePinning(t *testing.T) {
	obj := convertedYAML(t, `
apiVersion: core.gardener.cloud/v1beta1
kind: Shoot
metadata: {name: a, namespace: garden-dev}
spec:
  cloudProfile: {kind: CloudProfile, name: aws}
  region: eu-west-1
  provider: {type: aws}
  controlPlane:
    zones: [eu-west-1b]
`)
	if cp := obj.(*v1alpha1.Shoot).Spec.ControlPlane; cp == nil || !slices.Equal(cp.Zones, []string{"eu-west-1b"}) {
		t.Errorf("controlPlane %+v, want the zone eu-west-1b pinned", cp)
	}
	obj = convertedYAML(t, `
apiVersion: core.gardener.cloud/v1beta1
kind: CloudProfile
metadata: {name: aws}
spec:
  type: aws
  controlPlane: {allowZonePinning: true}
`)
	if cp := obj.(*v1alpha1.CloudProfile).Spec.ControlPlane; cp == nil || !cp.AllowZonePinning {
		t.Errorf("cloud profile controlPlane %+v, want zone pinning allowed", cp)
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

// A Shoot as gardener-apiserver serves one of a small production cluster:
// the fields graft reads and the many it drops.
const benchShoot = `
apiVersion: core.gardener.cloud/v1beta1
kind: Shoot
metadata:
  name: prod-eu
  namespace: garden-team
  uid: 3f0c2a4e-8a51-4d8e-9b7c-1d2e3f4a5b6c
  resourceVersion: "123456"
  generation: 7
  creationTimestamp: "2026-01-01T00:00:00Z"
  labels: {shoot.gardener.cloud/status: healthy, cost-center: "4711"}
  annotations: {gardener.cloud/created-by: someone@example.com, shoot.gardener.cloud/cloud-config-execution-max-delay-seconds: "300"}
  finalizers: [gardener]
  managedFields:
  - {manager: gardener-apiserver, operation: Update, apiVersion: core.gardener.cloud/v1beta1, time: "2026-01-01T00:00:00Z", fieldsType: FieldsV1, fieldsV1: {"f:spec": {"f:seedName": {}}}}
spec:
  cloudProfile: {kind: CloudProfile, name: aws}
  region: eu-west-1
  purpose: production
  seedName: aws-eu1
  secretBindingName: my-aws
  kubernetes: {version: 1.33.2, kubeAPIServer: {enableAnonymousAuthentication: false}}
  networking: {type: calico, nodes: 10.250.0.0/16, pods: 100.96.0.0/11, services: 100.64.0.0/13, ipFamilies: [IPv4]}
  maintenance:
    autoUpdate: {kubernetesVersion: true, machineImageVersion: true}
    timeWindow: {begin: 220000+0100, end: 230000+0100}
  provider:
    type: aws
    controlPlaneConfig: {apiVersion: aws.provider.extensions.gardener.cloud/v1alpha1, kind: ControlPlaneConfig}
    infrastructureConfig:
      apiVersion: aws.provider.extensions.gardener.cloud/v1alpha1
      kind: InfrastructureConfig
      networks:
        vpc: {cidr: 10.250.0.0/16}
        zones:
        - {name: eu-west-1a, internal: 10.250.112.0/22, public: 10.250.96.0/22, workers: 10.250.0.0/19}
        - {name: eu-west-1b, internal: 10.250.116.0/22, public: 10.250.100.0/22, workers: 10.250.32.0/19}
    workers:
    - name: worker-a
      machine: {type: m5.large, image: {name: gardenlinux, version: 1592.1.0}, architecture: amd64}
      maximum: 5
      minimum: 2
      volume: {type: gp3, size: 50Gi}
      zones: [eu-west-1a, eu-west-1b]
  tolerations: [{key: dedicated, value: team}]
  controlPlane: {highAvailability: {failureTolerance: {type: zone}}}
status:
  seedName: aws-eu1
  technicalID: shoot--team--prod-eu
  uid: 3f0c2a4e-8a51-4d8e-9b7c-1d2e3f4a5b6c
  observedGeneration: 7
  hibernated: false
  gardener: {id: abc, name: gardener-controller-manager, version: v1.149.3}
  networking: {nodes: [10.250.0.0/16], pods: [100.96.0.0/11], services: [100.64.0.0/13]}
  lastOperation: {type: Reconcile, state: Succeeded, progress: 100, description: Shoot cluster has been successfully reconciled., lastUpdateTime: "2026-01-02T00:00:00Z"}
  conditions:
  - {type: APIServerAvailable, status: "True", lastTransitionTime: "2026-01-01T00:00:00Z", lastUpdateTime: "2026-01-02T00:00:00Z", reason: HealthzRequestSucceeded, message: API server /healthz endpoint responded with success status code.}
  - {type: ControlPlaneHealthy, status: "True", lastTransitionTime: "2026-01-01T00:00:00Z", lastUpdateTime: "2026-01-02T00:00:00Z", reason: ControlPlaneRunning, message: All control plane components are healthy.}
  - {type: EveryNodeReady, status: "True", lastTransitionTime: "2026-01-01T00:00:00Z", lastUpdateTime: "2026-01-02T00:00:00Z", reason: EveryNodeReady, message: All nodes are ready.}
`

// decodedShoot returns benchShoot as JSON and as the dynamic client decodes it.
func decodedShoot(tb testing.TB) ([]byte, *unstructured.Unstructured) {
	tb.Helper()
	data, err := yaml.YAMLToJSON([]byte(benchShoot))
	if err != nil {
		tb.Fatal(err)
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(data); err != nil {
		tb.Fatal(err)
	}
	return data, u
}

// FromGardener reads the decoded map an informer holds; Convert reads the
// JSON of a landscape file. Both must give the same object.
func TestFromGardenerAgreesWithConvert(t *testing.T) {
	data, u := decodedShoot(t)
	obj, err := FromGardener(u)
	if err != nil {
		t.Fatal(err)
	}
	var want v1alpha1.Shoot
	if err := Convert(data, &want); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&want, obj); diff != "" {
		t.Errorf("FromGardener and Convert differ (-Convert +FromGardener):\n%s", diff)
	}
	if want.Spec.Networking == nil || want.Status.LastOperation == nil || len(want.Spec.Tolerations) != 1 {
		t.Errorf("the fields compared were not read: %+v", want)
	}
}

// BenchmarkFromGardenerShoot measures the conversion every Shoot a Gardener
// garden's informers and bindings return goes through.
func BenchmarkFromGardenerShoot(b *testing.B) {
	_, u := decodedShoot(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := FromGardener(u); err != nil {
			b.Fatal(err)
		}
	}
}

// A project member on Gardener writes any annotation of its own shoot; no
// admission knows graft.dev/evict there. Read from Gardener, a tenant's
// "false" must protect nothing: its shoot would otherwise stay on an
// over-full seed while another tenant's moved, and hold a drain for ever.
func TestGardenerShootCannotProtectItselfFromEviction(t *testing.T) {
	obj := convertedYAML(t, `
apiVersion: core.gardener.cloud/v1beta1
kind: Shoot
metadata:
  name: a
  namespace: garden-dev
  annotations: {graft.dev/evict: "false", team: a}
spec:
  cloudProfile: {kind: CloudProfile, name: aws}
  region: eu-west-1
  provider: {type: aws}
  seedName: b
`)
	shoot := obj.(*v1alpha1.Shoot)
	if _, kept := shoot.Annotations[v1alpha1.AnnotationEvict]; kept {
		t.Errorf("a tenant's graft.dev/evict protects its shoot on Gardener: %v", shoot.Annotations)
	}
	if shoot.Annotations["team"] != "a" {
		t.Errorf("other annotations lost: %v", shoot.Annotations)
	}
}
