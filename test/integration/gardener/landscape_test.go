//go:build gardener

package gardener

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/graft-dev/graft/test/framework"
)

func TestMain(m *testing.M) { framework.MainWithOptions(m, framework.Options{Gardener: true}) }

var (
	cloudProfiles       = schema.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "cloudprofiles"}
	projects            = schema.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "projects"}
	seeds               = schema.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "seeds"}
	shoots              = schema.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "shoots"}
	credentialsBindings = schema.GroupVersionResource{Group: "security.gardener.cloud", Version: "v1alpha1", Resource: "credentialsbindings"}
	apiServices         = schema.GroupVersionResource{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"}
	crds                = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
)

const (
	// providerType names no real provider: the framework disables
	// ExtensionValidator, the one admission plugin that wants the provider's
	// extension registered.
	providerType = "local"
	region       = "eu-west-1"
	k8sVersion   = "1.33.5"
	// The seeds' defaults for the networks of their shoots.
	shootPods     = "100.96.0.0/11"
	shootServices = "100.64.0.0/13"
)

// landscape is a Gardener landscape of one project: a CloudProfile, the
// project's namespace, a Secret with a CredentialsBinding to it, and seeds
// that shoots may be bound to. Cluster-scoped names carry the project's name,
// so that tests sharing the garden do not collide.
type landscape struct {
	project      string
	namespace    string
	cloudProfile string
	credentials  string
	seeds        []string
}

// landscapes numbers the landscapes of a test binary, so that a test run
// again in the same garden (go test -count) gets names of its own.
var landscapes atomic.Int32

// newLandscape creates a landscape with the named seeds for a project named
// prefix and a number (Gardener allows project names of at most 10
// characters), each object through Gardener's validation and admission.
func newLandscape(t *testing.T, prefix string, seedNames ...string) *landscape {
	t.Helper()
	ctx := t.Context()
	env := framework.Shared(t)
	project := fmt.Sprintf("%s%d", prefix, landscapes.Add(1))
	if len(project) > 10 {
		t.Fatalf("project name %s is longer than Gardener's 10 characters", project)
	}
	l := &landscape{
		project:      project,
		namespace:    "garden-" + project,
		cloudProfile: project + "-profile",
		credentials:  project + "-credentials",
	}
	create(t, cloudProfiles, "", fmt.Sprintf(`
apiVersion: core.gardener.cloud/v1beta1
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
  - name: %s
    zones:
    - name: %sa
`, l.cloudProfile, providerType, k8sVersion, region, region))

	// Gardener's project controller would create the namespace; no controller
	// runs here, and the Project's validation only needs it to exist.
	if _, err := env.KubeClient().CoreV1().Namespaces().Create(ctx,
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: l.namespace}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating namespace %s: %v", l.namespace, err)
	}
	create(t, projects, "", fmt.Sprintf(`
apiVersion: core.gardener.cloud/v1beta1
kind: Project
metadata:
  name: %s
spec:
  namespace: %s
`, l.project, l.namespace))

	if _, err := env.KubeClient().CoreV1().Secrets(l.namespace).Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: l.credentials},
		StringData: map[string]string{"token": "not-a-real-cloud-credential"},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating the cloud credentials secret: %v", err)
	}
	create(t, credentialsBindings, l.namespace, fmt.Sprintf(`
apiVersion: security.gardener.cloud/v1alpha1
kind: CredentialsBinding
metadata:
  name: %s
provider:
  type: %s
credentialsRef:
  apiVersion: v1
  kind: Secret
  name: %s
  namespace: %s
`, l.credentials, providerType, l.credentials, l.namespace))

	// The seeds' DNS credentials live in the garden namespace, as in a real
	// landscape.
	dnsSecret := project + "-dns"
	if _, err := env.KubeClient().CoreV1().Secrets("garden").Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: dnsSecret},
		StringData: map[string]string{"token": "not-a-real-dns-credential"},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating the DNS credentials secret: %v", err)
	}
	for i, name := range seedNames {
		seed := project + "-" + name
		create(t, seeds, "", fmt.Sprintf(`
apiVersion: core.gardener.cloud/v1beta1
kind: Seed
metadata:
  name: %[1]s
spec:
  provider:
    type: %[2]s
    region: %[3]s
  ingress:
    domain: ingress.%[1]s.graft.example
    controller:
      kind: nginx
  dns:
    provider:
      type: local-dns
      credentialsRef: &dns
        apiVersion: v1
        kind: Secret
        name: %[4]s
        namespace: garden
    internal:
      type: local-dns
      domain: internal.%[1]s.graft.example
      credentialsRef: *dns
    defaults:
    - type: local-dns
      domain: shoots.%[1]s.graft.example
      credentialsRef: *dns
  networks:
    nodes: 10.%[5]d.0.0/16
    pods: 10.%[6]d.0.0/16
    services: 10.%[7]d.0.0/16
    # Gardener's shoot mutator gives a shoot bound to this seed these
    # networks when the shoot names none.
    shootDefaults:
      pods: %[8]s
      services: %[9]s
  settings:
    scheduling:
      visible: true
`, seed, providerType, region, dnsSecret, 100+3*i, 101+3*i, 102+3*i, shootPods, shootServices))
		l.seeds = append(l.seeds, seed)
	}
	return l
}

// shootYAML is a Shoot of the landscape's project that Gardener's validation
// accepts, without a seed.
func (l *landscape) shootYAML(name string) string {
	return fmt.Sprintf(`
apiVersion: core.gardener.cloud/v1beta1
kind: Shoot
metadata:
  name: %s
  namespace: %s
spec:
  cloudProfile:
    kind: CloudProfile
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
        type: m5.large
`, name, l.namespace, l.cloudProfile, region, l.credentials, k8sVersion, providerType)
}

func (l *landscape) createShoot(t *testing.T, name string) *unstructured.Unstructured {
	t.Helper()
	return create(t, shoots, l.namespace, l.shootYAML(name))
}

func dynamicClient(t *testing.T) dynamic.Interface {
	t.Helper()
	dyn, err := dynamic.NewForConfig(framework.Shared(t).Config())
	if err != nil {
		t.Fatal(err)
	}
	return dyn
}

// object parses a manifest.
func object(t *testing.T, manifest string) *unstructured.Unstructured {
	t.Helper()
	obj := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(manifest), &obj.Object); err != nil {
		t.Fatalf("parsing manifest: %v\n%s", err, manifest)
	}
	return obj
}

// create creates the manifest's object and fails the test with the API
// server's reason when Gardener refuses it.
func create(t *testing.T, gvr schema.GroupVersionResource, namespace, manifest string) *unstructured.Unstructured {
	t.Helper()
	obj := object(t, manifest)
	client := dynamicClient(t).Resource(gvr).Namespace(namespace)
	var created *unstructured.Unstructured
	err := admitted(t, func(ctx context.Context) (err error) {
		created, err = client.Create(ctx, obj, metav1.CreateOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("creating %s %s: %v", obj.GetKind(), obj.GetName(), err)
	}
	return created
}

// admitted runs write until gardener-apiserver's admission has seen the
// objects it refers to, and returns its last error. The admission plugins look
// references (the CloudProfile, the Project, the CredentialsBinding, the
// Seed) up in informer caches, which on a loaded machine can trail a create
// made a moment before; a miss is answered with "not found" and changes
// nothing, so the write is repeated, for up to 30 s. Any other answer,
// acceptance or refusal, is returned at once.
func admitted(t *testing.T, write func(ctx context.Context) error) error {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		err := write(ctx)
		cancel()
		if !cacheMiss(err) || time.Now().After(deadline) {
			return err
		}
		t.Logf("gardener-apiserver has not seen a referenced object yet, writing again: %v", err)
		select {
		case <-t.Context().Done():
			return err
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// cacheMiss reports whether err is an admission plugin missing an object in
// its informer cache. Plugins say so in different ways: a NotFound, an
// internal error ("could not find referenced cloud profile: ... not found") or
// a refusal (a CredentialsBinding "... not found"). None of the refusals the
// tests expect says "not found".
func cacheMiss(err error) bool {
	switch {
	case err == nil:
		return false
	case apierrors.IsNotFound(err):
		return true
	default:
		return (apierrors.IsInternalError(err) || apierrors.IsForbidden(err)) && strings.Contains(err.Error(), " not found")
	}
}
