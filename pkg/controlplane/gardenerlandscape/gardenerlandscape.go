package gardenerlandscape

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
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
// and <region>b and AccessRestriction.
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

// SeedSpec says what differs between the seeds of a landscape.
type SeedSpec struct {
	Name   string
	Region string
	// DNSSecret names the DNS credentials in DNSSecretNamespace (see Secret).
	DNSSecret string
	// Index makes the seed's own networks disjoint from those of the other
	// seeds with another index (0 to 50).
	Index int
	// Labels, if any, are the seed's labels.
	Labels map[string]string
	// Backup gives the seed a spec.backup (of ProviderType, with the DNS
	// credentials, which nothing reads here): Gardener migrates a shoot's
	// control plane only between seeds that both have backup.
	Backup bool
	// InternalDomain is spec.dns.internal.domain; empty means a domain of the
	// seed's own (internal.<name>.graft.example). Gardener migrates a control
	// plane only between seeds of the same internal domain.
	InternalDomain string
	// DefaultDomain is the domain of the seed's spec.dns.defaults, under which
	// Gardener names the shoots bound to it; empty means a domain of the
	// seed's own (shoots.<name>.graft.example).
	DefaultDomain string
	// AccessRestrictions are spec.accessRestrictions.
	AccessRestrictions []string
	// Annotations, if any, are the seed's annotations.
	Annotations map[string]string
	// Zones are spec.provider.zones.
	Zones []string
	// ZoneSelection, if set, is spec.settings.zoneSelection.mode.
	ZoneSelection string
}

// Seed is a visible Seed of ProviderType without status: gardenlet would
// report that; see ReadyStatus.
func Seed(s SeedSpec) string {
	var labels string
	meta := map[string]any{}
	if len(s.Labels) > 0 {
		meta["labels"] = s.Labels
	}
	if len(s.Annotations) > 0 {
		meta["annotations"] = s.Annotations
	}
	if len(meta) > 0 {
		data, _ := yaml.Marshal(meta)
		labels = strings.ReplaceAll(strings.TrimSpace(string(data)), "\n", "\n  ")
		labels = "\n  " + labels
	}
	var extra strings.Builder
	if len(s.Zones) > 0 {
		fmt.Fprintf(&extra, "\n    zones: [%s]", strings.Join(s.Zones, ", "))
	}
	provider := extra.String()
	extra.Reset()
	if s.ZoneSelection != "" {
		fmt.Fprintf(&extra, "\n    zoneSelection:\n      mode: %s", s.ZoneSelection)
	}
	settings := extra.String()
	extra.Reset()
	for _, r := range s.AccessRestrictions {
		fmt.Fprintf(&extra, "\n  - name: %s", r)
	}
	var restrictions string
	if extra.Len() > 0 {
		restrictions = "\n  accessRestrictions:" + extra.String()
	}
	internal, defaults := s.InternalDomain, s.DefaultDomain
	if internal == "" {
		internal = "internal." + s.Name + ".graft.example"
	}
	if defaults == "" {
		defaults = "shoots." + s.Name + ".graft.example"
	}
	var backup string
	if s.Backup {
		backup = fmt.Sprintf(`
  backup:
    provider: %s
    credentialsRef:
      apiVersion: v1
      kind: Secret
      name: %s
      namespace: %s`, ProviderType, s.DNSSecret, DNSSecretNamespace)
	}
	return fmt.Sprintf(`apiVersion: core.gardener.cloud/v1beta1
kind: Seed
metadata:
  name: %[1]s%[10]s
spec:
  provider:
    type: %[2]s
    region: %[3]s%[16]s%[18]s
  ingress:
    domain: ingress.%[1]s.graft.example
    controller:
      kind: nginx
  dns:
    provider:
      type: %[11]s
      credentialsRef: &dns
        apiVersion: v1
        kind: Secret
        name: %[4]s
        namespace: %[12]s
    internal:
      type: %[11]s
      domain: %[13]s
      credentialsRef: *dns
    defaults:
    - type: %[11]s
      domain: %[14]s
      credentialsRef: *dns
  networks:
    nodes: 10.%[5]d.0.0/16
    pods: 10.%[6]d.0.0/16
    services: 10.%[7]d.0.0/16
    shootDefaults:
      pods: %[8]s
      services: %[9]s
  settings:
    scheduling:
      visible: true%[17]s%[15]s
`, s.Name, ProviderType, s.Region, s.DNSSecret, 100+3*s.Index, 101+3*s.Index, 102+3*s.Index,
		ShootPods, ShootServices, labels, DNSProviderType, DNSSecretNamespace, internal, defaults, backup,
		provider, settings, restrictions)
}

// ShootSpec says what differs between the shoots of a landscape.
type ShootSpec struct {
	Name, Namespace string
	CloudProfile    string
	// CloudProfileKind is spec.cloudProfile.kind; empty means CloudProfile.
	CloudProfileKind string
	Region           string
	// CredentialsBinding names the project's CredentialsBinding.
	CredentialsBinding string
	// SchedulerName, if set, is spec.schedulerName; Gardener sets its own
	// scheduler's, default-scheduler, on a shoot without one.
	SchedulerName string
	// SeedSelector, if set, is spec.seedSelector.matchLabels.
	SeedSelector map[string]string
	// AccessRestrictions are spec.accessRestrictions.
	AccessRestrictions []string
	// Domain, if set, is spec.dns.domain.
	Domain string
	// Zones, if set, are the zones of the worker pool.
	Zones []string
}

// Shoot is a Shoot without a seed, with one worker pool.
func Shoot(s ShootSpec) string {
	var extra strings.Builder
	if s.SchedulerName != "" {
		fmt.Fprintf(&extra, "  schedulerName: %s\n", s.SchedulerName)
	}
	if len(s.SeedSelector) > 0 {
		data, _ := yaml.Marshal(map[string]any{"seedSelector": map[string]any{"matchLabels": s.SeedSelector}})
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			extra.WriteString("  " + line + "\n")
		}
	}
	for i, r := range s.AccessRestrictions {
		if i == 0 {
			extra.WriteString("  accessRestrictions:\n")
		}
		fmt.Fprintf(&extra, "  - name: %s\n", r)
	}
	if s.Domain != "" {
		fmt.Fprintf(&extra, "  dns:\n    domain: %s\n", s.Domain)
	}
	kind := s.CloudProfileKind
	if kind == "" {
		kind = "CloudProfile"
	}
	var zones string
	if len(s.Zones) > 0 {
		zones = fmt.Sprintf("\n      zones: [%s]", strings.Join(s.Zones, ", "))
	}
	return fmt.Sprintf(`apiVersion: core.gardener.cloud/v1beta1
kind: Shoot
metadata:
  name: %s
  namespace: %s
spec:
  cloudProfile:
    kind: %s
    name: %s
  region: %s
  credentialsBindingName: %s
  kubernetes:
    version: %s
  networking:
    type: calico
    nodes: 10.250.0.0/16
  provider:
    type: %s
    workers:
    - name: pool
      minimum: 1
      maximum: 2
      machine:
        type: m5.large%s
%s`, s.Name, s.Namespace, kind, s.CloudProfile, s.Region, s.CredentialsBinding, KubernetesVersion, ProviderType, zones, extra.String())
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
