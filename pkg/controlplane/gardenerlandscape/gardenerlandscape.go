package gardenerlandscape

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/controlplane"
	"github.com/graft-dev/graft/pkg/coretest"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

// The resources of the objects this package describes.
var (
	CloudProfiles           = schema.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "cloudprofiles"}
	NamespacedCloudProfiles = schema.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "namespacedcloudprofiles"}
	Projects                = schema.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "projects"}
	Seeds                   = schema.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "seeds"}
	Shoots                  = schema.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "shoots"}
	CredentialsBindings     = schema.GroupVersionResource{Group: "security.gardener.cloud", Version: "v1alpha1", Resource: "credentialsbindings"}
	Secrets                 = schema.GroupVersionResource{Version: "v1", Resource: "secrets"}
)

const (
	// ProviderType names no real provider: no extension is registered for
	// it, which is why ExtensionValidator must be off.
	ProviderType = "local"
	// KubernetesVersion is the one version the CloudProfile offers.
	KubernetesVersion = "1.33.5"
	// ShootPods and ShootServices are the seeds' defaults for the networks
	// of their shoots: Gardener's shoot mutator gives a shoot bound to a seed
	// these networks when the shoot names none.
	ShootPods     = "100.96.0.0/11"
	ShootServices = "100.64.0.0/13"
	// DNSProviderType is the seeds' DNS provider.
	DNSProviderType = "local-dns"
	// DNSSecretNamespace holds the seeds' DNS credentials, as in a real
	// landscape.
	DNSSecretNamespace = "garden"
)

// AccessRestriction is the access restriction every region of CloudProfile
// offers.
const AccessRestriction = "eu-access-only"

// CloudProfile is a CloudProfile of ProviderType offering KubernetesVersion,
// one machine image and type, and the regions, each with the zones <region>a
// and <region>b and AccessRestriction, that lets its shoots pin their control
// plane to zones.
func CloudProfile(name string, regions ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `apiVersion: core.gardener.cloud/v1beta1
kind: CloudProfile
metadata:
  name: %s
spec:
  type: %s
  kubernetes:
    versions:
    - version: %s
  machineImages:
  - name: gardenlinux
    versions:
    - version: 1877.3.0
      cri:
      - name: containerd
      architectures: [amd64]
  machineTypes:
  - name: m5.large
    cpu: "2"
    gpu: "0"
    memory: 8Gi
    architecture: amd64
    usable: true
  controlPlane:
    allowZonePinning: true
  regions:
`, name, ProviderType, KubernetesVersion)
	for _, r := range regions {
		fmt.Fprintf(&b, "  - name: %s\n    zones:\n    - name: %sa\n    - name: %sb\n    accessRestrictions:\n    - name: %s\n", r, r, r, AccessRestriction)
	}
	return b.String()
}

// Project is a Project whose namespace must exist: Gardener's project
// controller would create it, and none runs in these gardens.
func Project(name, namespace string) string {
	return fmt.Sprintf(`apiVersion: core.gardener.cloud/v1beta1
kind: Project
metadata:
  name: %s
spec:
  namespace: %s
`, name, namespace)
}

// Secret is an Opaque Secret with one made-up token, standing for cloud or
// DNS credentials.
func Secret(name, namespace string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Secret
metadata:
  name: %s
  namespace: %s
stringData:
  token: not-a-real-credential
`, name, namespace)
}

// CredentialsBinding binds the project's Secret of the same name as the
// binding (see Secret) to shoots of ProviderType.
func CredentialsBinding(name, namespace string) string {
	return fmt.Sprintf(`apiVersion: security.gardener.cloud/v1alpha1
kind: CredentialsBinding
metadata:
  name: %[1]s
  namespace: %[2]s
provider:
  type: %[3]s
credentialsRef:
  apiVersion: v1
  kind: Secret
  name: %[1]s
  namespace: %[2]s
`, name, namespace, ProviderType)
}

// SeedNetworks are the node, pod and service networks of the seed of index
// (0 to 49): disjoint from those of the other indexes and from the networks
// of MakeShoot's shoots.
func SeedNetworks(index int) (nodes, pods, services string) {
	return fmt.Sprintf("10.%d.0.0/16", 100+3*index), fmt.Sprintf("10.%d.0.0/16", 101+3*index), fmt.Sprintf("10.%d.0.0/16", 102+3*index)
}

// MakeSeed is coretest's seed as the landscapes have it: of ProviderType in
// region, without zones, with the networks of index and the shoot networks
// ShootPods and ShootServices. Seed turns it into a Gardener Seed.
func MakeSeed(name, region string, index int) *coretest.SeedWrapper {
	return coretest.MakeSeed(name).Provider(ProviderType, region).Zones().
		Networks(SeedNetworks(index)).ShootDefaults(ShootPods, ShootServices)
}

// Seed is seed, built with coretest (see MakeSeed), as a visible Gardener
// Seed without status (gardenlet would report it; see ReadyStatus). What
// gardener-apiserver requires besides is filled in: an ingress domain, DNS
// of DNSProviderType with the credentials dnsSecret names in
// DNSSecretNamespace, an internal domain (internal.<name>.graft.example) and
// a default domain (shoots.<name>.graft.example) where the seed names none,
// and the backup's credentials. Gardener's taints have no effect: a taint
// with one is an error.
func Seed(seed *v1alpha1.Seed, dnsSecret string) (*unstructured.Unstructured, error) {
	for _, t := range seed.Spec.Taints {
		if t.Effect != "" {
			return nil, fmt.Errorf("seed %s: taint %s has effect %s; Gardener's taints have none", seed.Name, t.Key, t.Effect)
		}
	}
	spec, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&seed.Spec)
	if err != nil {
		return nil, fmt.Errorf("seed %s: %w", seed.Name, err)
	}
	credentials := map[string]any{"apiVersion": "v1", "kind": "Secret", "name": dnsSecret, "namespace": DNSSecretNamespace}
	internal, defaults := "internal."+seed.Name+".graft.example", []string{"shoots." + seed.Name + ".graft.example"}
	if seed.Spec.DNS.Internal != nil {
		internal = seed.Spec.DNS.Internal.Domain
	}
	if len(seed.Spec.DNS.Defaults) > 0 {
		defaults = defaults[:0]
		for _, d := range seed.Spec.DNS.Defaults {
			defaults = append(defaults, d.Domain)
		}
	}
	dns := map[string]any{
		"provider": map[string]any{"type": DNSProviderType, "credentialsRef": credentials},
		"internal": map[string]any{"type": DNSProviderType, "domain": internal, "credentialsRef": credentials},
	}
	var defaultList []any
	for _, d := range defaults {
		defaultList = append(defaultList, map[string]any{"type": DNSProviderType, "domain": d, "credentialsRef": credentials})
	}
	dns["defaults"] = defaultList
	spec["dns"] = dns
	spec["ingress"] = map[string]any{"domain": "ingress." + seed.Name + ".graft.example", "controller": map[string]any{"kind": "nginx"}}
	if seed.Spec.Backup != nil {
		spec["backup"] = map[string]any{"provider": seed.Spec.Backup.Provider, "credentialsRef": credentials}
	}
	settings, _ := spec["settings"].(map[string]any)
	if settings == nil {
		settings = map[string]any{}
	}
	if _, ok := settings["scheduling"]; !ok {
		settings["scheduling"] = map[string]any{"visible": true}
	}
	spec["settings"] = settings
	return gardenerObject("Seed", seed.ObjectMeta, spec), nil
}

// MustSeed is Seed for a seed known to convert, such as a test's: it panics
// where Seed returns an error.
func MustSeed(seed *v1alpha1.Seed, dnsSecret string) *unstructured.Unstructured {
	obj, err := Seed(seed, dnsSecret)
	if err != nil {
		panic(err)
	}
	return obj
}

// MakeShoot is coretest's shoot as the landscapes have it: of ProviderType
// with the cloud profile in region, one worker pool, the node network
// 10.250.0.0/16, and the pod and service networks its seed gives it. Shoot
// turns it into a Gardener Shoot, with a worker pool named pool where it has
// none.
func MakeShoot(namespace, name, cloudProfile, region string) *coretest.ShootWrapper {
	return coretest.MakeShoot(namespace, name).CloudProfileRef("CloudProfile", cloudProfile).Provider(ProviderType, region).
		Networks("10.250.0.0/16", "", "")
}

// Shoot is shoot, built with coretest (see MakeShoot), as a Gardener Shoot
// without a seed that gardener-apiserver admits: KubernetesVersion, calico
// networking, the CredentialsBinding named credentialsBinding, and for each
// worker pool one to two machines of m5.large. Gardener's tolerations have no
// effect and no time: a toleration with either is an error.
func Shoot(shoot *v1alpha1.Shoot, credentialsBinding string) (*unstructured.Unstructured, error) {
	for _, t := range shoot.Spec.Tolerations {
		if t.Effect != "" || t.TolerationSeconds != nil {
			return nil, fmt.Errorf("shoot %s/%s: toleration %s has an effect or seconds; Gardener's tolerations have neither", shoot.Namespace, shoot.Name, t.Key)
		}
	}
	spec, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&shoot.Spec)
	if err != nil {
		return nil, fmt.Errorf("shoot %s/%s: %w", shoot.Namespace, shoot.Name, err)
	}
	spec["credentialsBindingName"] = credentialsBinding
	spec["kubernetes"] = map[string]any{"version": KubernetesVersion}
	networking, _ := spec["networking"].(map[string]any)
	if networking == nil {
		networking = map[string]any{}
	}
	networking["type"] = "calico"
	spec["networking"] = networking
	provider := spec["provider"].(map[string]any)
	workers, _ := provider["workers"].([]any)
	if len(workers) == 0 {
		workers = []any{map[string]any{"name": "pool"}}
		provider["workers"] = workers
	}
	for _, w := range workers {
		w := w.(map[string]any)
		w["minimum"], w["maximum"] = int64(1), int64(2)
		w["machine"] = map[string]any{"type": "m5.large"}
	}
	return gardenerObject("Shoot", shoot.ObjectMeta, spec), nil
}

// gardenerObject is a core.gardener.cloud/v1beta1 object of kind with the
// name, namespace, labels, annotations and resourceVersion of meta.
func gardenerObject(kind string, meta metav1.ObjectMeta, spec map[string]any) *unstructured.Unstructured {
	obj := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	obj.SetAPIVersion("core.gardener.cloud/v1beta1")
	obj.SetKind(kind)
	obj.SetName(meta.Name)
	obj.SetNamespace(meta.Namespace)
	obj.SetLabels(meta.Labels)
	obj.SetAnnotations(meta.Annotations)
	obj.SetResourceVersion(meta.ResourceVersion)
	return obj
}

// Object decodes a manifest.
func Object(manifest string) (*unstructured.Unstructured, error) {
	obj := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(manifest), &obj.Object); err != nil {
		return nil, fmt.Errorf("parsing manifest: %w\n%s", err, manifest)
	}
	return obj, nil
}

// ReadyStatus is the status a ready gardenlet reports for the seed: a
// succeeded reconciliation, GardenletReady True, BackupBucketsReady True when
// the seed has spec.backup and, when allocatable is not negative, room for
// that many shoots. Without gardenlet a seed has no status, and neither graft
// nor Gardener places shoots on it. The rest of the seed's status is kept:
// a gardenlet that runs has written its own fields (clusterIdentity, which
// may not change once set).
func ReadyStatus(seed *unstructured.Unstructured, allocatable int, now time.Time) map[string]any {
	ts := now.UTC().Format(time.RFC3339)
	condition := func(kind, message string) any {
		return map[string]any{
			"type": kind, "status": "True", "reason": kind, "message": message,
			"lastTransitionTime": ts, "lastUpdateTime": ts,
		}
	}
	conditions := []any{condition("GardenletReady", "gardenlet is ready")}
	if _, backup, _ := unstructured.NestedMap(seed.Object, "spec", "backup"); backup {
		conditions = append(conditions, condition("BackupBucketsReady", "the seed's backup buckets are ready"))
	}
	status := map[string]any{}
	if existing, ok := seed.Object["status"].(map[string]any); ok {
		maps.Copy(status, existing)
	}
	status["lastOperation"] = map[string]any{
		"type": "Reconcile", "state": "Succeeded", "progress": int64(100),
		"description": "seed is ready", "lastUpdateTime": ts,
	}
	status["conditions"] = conditions
	if _, reported := status["gardener"]; !reported {
		// As a gardenlet of the garden's version reports itself: seeds that
		// meet live migration's prerequisites among themselves.
		status["gardener"] = map[string]any{"name": "gardenlet", "version": controlplane.GardenerVersion}
	}
	if allocatable >= 0 {
		status["allocatable"] = map[string]any{"shoots": fmt.Sprint(allocatable)}
	}
	return status
}

// Admitted runs write until gardener-apiserver's admission has seen the
// objects it refers to, and returns its last error. The admission plugins look
// references (the CloudProfile, the Project, the CredentialsBinding, the
// Seed) up in informer caches, which on a loaded machine can trail a create
// made a moment before; a miss is answered with "not found" and changes
// nothing, so the write is repeated, for up to 30 s, with onMiss (if not nil)
// told each time. Any other answer, acceptance or refusal, is returned at once.
func Admitted(ctx context.Context, write func(ctx context.Context) error, onMiss func(error)) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		callCtx, cancel := context.WithTimeout(ctx, time.Minute)
		err := write(callCtx)
		cancel()
		if !CacheMiss(err) || time.Now().After(deadline) {
			return err
		}
		if onMiss != nil {
			onMiss(err)
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// CacheMiss reports whether err is an admission plugin missing an object in
// its informer cache. Plugins say so in different ways: a NotFound, an
// internal error ("could not find referenced cloud profile: ... not found") or
// a refusal (a CredentialsBinding "... not found"). None of the refusals
// graft's tests expect says "not found".
func CacheMiss(err error) bool {
	switch {
	case err == nil:
		return false
	case apierrors.IsNotFound(err):
		return true
	default:
		return (apierrors.IsInternalError(err) || apierrors.IsForbidden(err)) && strings.Contains(err.Error(), " not found")
	}
}
