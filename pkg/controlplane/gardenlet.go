package controlplane

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// gardenletEnv is the environment gardenlet runs with. KUBECONFIG,
// GARDEN_KUBECONFIG and NAMESPACE would override its configuration (the last
// turns it into a self-hosted shoot's gardenlet), and the control plane's
// Kubernetes release is newer than the ones gardenlet v1.150 supports.
func gardenletEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		switch k, _, _ := strings.Cut(kv, "="); k {
		case "KUBECONFIG", "GARDEN_KUBECONFIG", "NAMESPACE":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "EXPERIMENTAL_DISABLE_KUBERNETES_VERSION_CHECK=true")
}

// RunGardenlet starts Gardener's gardenlet (GardenletBinary) for seed with
// config, a GardenletConfiguration as a ManagedSeed's spec.gardenlet.config or
// a Gardenlet's spec.config holds it, the way the parent gardenlet or
// gardener-operator deploys it: with the seed's name (the object's), the
// connections and the ports only the deployment knows added. cp, started with
// Gardener, is both its garden and its seed cluster. Its log is
// dir/gardenlet.log.
//
// At start gardenlet writes its Seed's spec from seedConfig; then it stops,
// for lack of the seed cluster it would manage, which is all a test of what
// survives its restart needs.
func RunGardenlet(ctx context.Context, cp *ControlPlane, dir, seed string, config map[string]any) (*Process, error) {
	bin, err := GardenletBinary()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	kubeconfig := filepath.Join(dir, "garden.kubeconfig")
	if err := writeGardenletKubeconfig(cp, kubeconfig); err != nil {
		return nil, err
	}
	kube, err := kubernetes.NewForConfig(cp.RESTConfig)
	if err != nil {
		return nil, err
	}
	if err := prepareGardenletGarden(ctx, kube, seed); err != nil {
		return nil, err
	}
	cfg := runtime.DeepCopyJSON(config)
	if err := unstructured.SetNestedField(cfg, seed, "seedConfig", "metadata", "name"); err != nil {
		return nil, err
	}
	for _, conn := range []string{"gardenClientConnection", "seedClientConnection"} {
		if err := unstructured.SetNestedField(cfg, kubeconfig, conn, "kubeconfig"); err != nil {
			return nil, err
		}
	}
	ports, err := FreePorts("127.0.0.1", 2)
	if err != nil {
		return nil, err
	}
	cfg["server"] = map[string]any{
		"healthProbes": map[string]any{"bindAddress": "127.0.0.1", "port": int64(ports[0])},
		"metrics":      map[string]any{"bindAddress": "127.0.0.1", "port": int64(ports[1])},
	}
	data, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	configFile := filepath.Join(dir, "gardenlet-config.json")
	if err := os.WriteFile(configFile, data, 0o600); err != nil {
		return nil, err
	}
	p, err := startChild(dir, "gardenlet", false, gardenletEnv(), bin, "--config="+configFile)
	if err != nil {
		return nil, err
	}
	return &Process{p: p}, nil
}

// writeGardenletKubeconfig writes the admin's kubeconfig with a client
// certificate added: gardenlet reads the certificate's expiry to rotate it,
// and stops without one. The API server authenticates the token; it has no
// client CA to check the certificate against.
func writeGardenletKubeconfig(cp *ControlPlane, path string) error {
	ca, err := NewCertAuthority("gardenlet-client")
	if err != nil {
		return err
	}
	cert, key, err := ca.Issue(CertRequest{CommonName: "gardenlet"})
	if err != nil {
		return err
	}
	kc := clientcmdapi.NewConfig()
	kc.Clusters["garden"] = &clientcmdapi.Cluster{Server: cp.RESTConfig.Host, CertificateAuthorityData: cp.RESTConfig.CAData}
	kc.AuthInfos["garden"] = &clientcmdapi.AuthInfo{Token: cp.RESTConfig.BearerToken, ClientCertificateData: cert, ClientKeyData: key}
	kc.Contexts["garden"] = &clientcmdapi.Context{Cluster: "garden", AuthInfo: "garden"}
	kc.CurrentContext = "garden"
	return clientcmd.WriteToFile(*kc, path)
}

// prepareGardenletGarden creates what a gardenlet expects a garden to have
// before it registers its seed: gardener-operator's gardener-info ConfigMap,
// whose gardener-apiserver version gardenlet checks its own against, and the
// seed's namespace, which gardenlet waits for after writing the Seed.
func prepareGardenletGarden(ctx context.Context, kube kubernetes.Interface, seed string) error {
	for _, ns := range []string{"gardener-system-public", "seed-" + seed} {
		_, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating namespace %s: %w", ns, err)
		}
	}
	info := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: "gardener-system-public", Name: "gardener-info"},
		Data:       map[string]string{"gardenerAPIServer": "version: " + GardenerVersion + "\n"},
	}
	return createOrUpdate(ctx, kube.CoreV1().ConfigMaps(info.Namespace), info)
}
