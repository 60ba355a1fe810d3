package controlplane

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
)

// GardenerVersion is the Gardener release whose API server the framework
// runs. hack/build-gardener.sh builds the same release by default;
// change both together.
const GardenerVersion = "v1.150.0"

// GardenerAPIGroupVersions are the API groups gardener-apiserver v1.150
// serves, all registered with kube-apiserver: its admission plugins and
// clients such as kubectl discover and use every one of them, so a group left
// unregistered shows up as a half-working Gardener.
var GardenerAPIGroupVersions = []schema.GroupVersion{
	{Group: "core.gardener.cloud", Version: "v1"},
	{Group: "core.gardener.cloud", Version: "v1beta1"},
	{Group: "seedmanagement.gardener.cloud", Version: "v1alpha1"},
	{Group: "operations.gardener.cloud", Version: "v1alpha1"},
	{Group: "security.gardener.cloud", Version: "v1alpha1"},
}

// DefaultDisabledGardenerAdmissionPlugins are the admission plugins of
// gardener-apiserver that a garden without Gardener's extensions cannot pass:
// ExtensionValidator refuses a Seed or Shoot whose provider type (or a seed's
// DNS provider type) no ControllerRegistration declares ("uses non-registered
// provider type"), and the providers here are only names. It is the only
// plugin that refuses test/integration/gardener's landscape; every other
// plugin stays on, so that objects meet the rules a real Gardener enforces.
var DefaultDisabledGardenerAdmissionPlugins = []string{"ExtensionValidator"}

const (
	gardenerName          = "gardener-apiserver"
	pidFileGardener       = "gardener-apiserver.pid"
	gardenerClusterRole   = "gardener.cloud:system:apiserver"
	frontProxyClientName  = "front-proxy-client"
	gardenerEtcdPrefix    = "/registry-gardener"
	gardenerTokenLifetime = 30 * 24 * time.Hour
)

// GardenerOptions tune PrepareGardener.
type GardenerOptions struct {
	// Dir holds gardener-apiserver's certificates, kubeconfig, log and pid
	// file. Empty means a new temporary directory, removed by Stop.
	Dir string
	// Detach lets gardener-apiserver outlive the calling process (for
	// hack/local-garden.sh up); StopGardenerDir stops it later.
	Detach bool
	// Log receives progress lines; nil discards them.
	Log io.Writer
	// DisableAdmissionPlugins are gardener-apiserver admission plugins to
	// turn off; nil means DefaultDisabledGardenerAdmissionPlugins.
	DisableAdmissionPlugins []string
	// FeatureGates are gardener-apiserver's --feature-gates, such as
	// LiveControlPlaneMigration=true; none by default.
	FeatureGates []string
}

// Gardener is Gardener's API server, gardener-apiserver, run as a process
// beside a ControlPlane and registered with its kube-apiserver through
// APIServices, so that clients reach core.gardener.cloud and the other
// Gardener groups through the garden's one address, as in a real garden.
//
// It takes two steps because kube-apiserver needs the aggregation layer's
// flags when it starts: PrepareGardener generates the certificates and
// APIServerArgs returns those flags for ControlPlaneOptions.ExtraAPIServerArgs;
// Start runs gardener-apiserver against the started control plane.
type Gardener struct {
	// Dir holds the state of gardener-apiserver.
	Dir string
	// URL is gardener-apiserver's own address; clients use the
	// kube-apiserver's, which proxies Gardener's groups to it.
	URL string
	// CABundle is the CA of gardener-apiserver's serving certificate.
	CABundle []byte

	opts      GardenerOptions
	log       io.Writer
	binary    string
	port      int
	removeDir bool
	proc      *process
}

// PrepareGardener finds the gardener-apiserver binary, picks its port and
// generates the certificates of the aggregation layer (the front proxy's CA
// and client certificate kube-apiserver authenticates with) and
// gardener-apiserver's serving certificate. It starts nothing.
func PrepareGardener(opts GardenerOptions) (_ *Gardener, retErr error) {
	bin, err := GardenerAPIServerBinary()
	if err != nil {
		return nil, err
	}
	g := &Gardener{Dir: opts.Dir, opts: opts, log: opts.Log, binary: bin}
	if g.log == nil {
		g.log = io.Discard
	}
	if g.Dir == "" {
		dir, err := os.MkdirTemp("", "graft-gardener-")
		if err != nil {
			return nil, fmt.Errorf("creating gardener-apiserver's directory: %w", err)
		}
		g.Dir, g.removeDir = dir, true
	}
	defer func() {
		if retErr != nil && g.removeDir {
			_ = os.RemoveAll(g.Dir)
		}
	}()
	ports, err := FreePorts("127.0.0.1", 1)
	if err != nil {
		return nil, err
	}
	g.port = ports[0]
	g.URL = "https://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(g.port))

	frontProxyCA, err := NewCertAuthority("graft-front-proxy-ca")
	if err != nil {
		return nil, err
	}
	clientCert, clientKey, err := frontProxyCA.Issue(CertRequest{CommonName: frontProxyClientName})
	if err != nil {
		return nil, err
	}
	servingCA, err := NewCertAuthority("graft-gardener-apiserver-ca")
	if err != nil {
		return nil, err
	}
	// kube-apiserver dials the Service's ExternalName (localhost) but checks
	// the certificate against the Service's DNS name.
	servingCert, servingKey, err := servingCA.Issue(CertRequest{
		CommonName: gardenerName,
		DNSNames:   []string{"localhost", gardenerName + ".kube-system.svc", gardenerName + ".kube-system.svc.cluster.local"},
		IPs:        []net.IP{net.IPv4(127, 0, 0, 1)},
	})
	if err != nil {
		return nil, err
	}
	g.CABundle = servingCA.CertPEM()
	if err := writeFiles(g.certDir(), map[string][]byte{
		"front-proxy-ca.crt":     frontProxyCA.CertPEM(),
		"front-proxy-client.crt": clientCert,
		"front-proxy-client.key": clientKey,
		"ca.crt":                 servingCA.CertPEM(),
		"tls.crt":                servingCert,
		"tls.key":                servingKey,
	}); err != nil {
		return nil, err
	}
	return g, nil
}

func (g *Gardener) certDir() string { return filepath.Join(g.Dir, "certs") }

// APIServerArgs are the kube-apiserver flags of the aggregation layer: the
// client certificate kube-apiserver presents when it proxies a request to
// gardener-apiserver, and the request-header settings through which
// gardener-apiserver learns who made the request (it reads them from the
// extension-apiserver-authentication ConfigMap kube-apiserver publishes).
func (g *Gardener) APIServerArgs() []string {
	certs := g.certDir()
	return []string{
		"--requestheader-client-ca-file=" + filepath.Join(certs, "front-proxy-ca.crt"),
		"--requestheader-allowed-names=" + frontProxyClientName,
		"--requestheader-username-headers=X-Remote-User",
		"--requestheader-group-headers=X-Remote-Group",
		"--requestheader-extra-headers-prefix=X-Remote-Extra-",
		"--proxy-client-cert-file=" + filepath.Join(certs, "front-proxy-client.crt"),
		"--proxy-client-key-file=" + filepath.Join(certs, "front-proxy-client.key"),
	}
}

// Start runs gardener-apiserver against cp, which must have been started with
// APIServerArgs among its ExtraAPIServerArgs: it stores its objects in cp's
// etcd under a prefix of its own, authenticates and authorizes requests by
// delegating to cp's kube-apiserver, and is registered there through
// APIServices. Start returns once discovery through kube-apiserver lists
// every group of GardenerAPIGroupVersions and Shoots can be listed.
func (g *Gardener) Start(ctx context.Context, cp *ControlPlane) (retErr error) {
	if g.proc != nil {
		return errors.New("gardener-apiserver is already running")
	}
	etcdURL, err := cp.etcdClientURL()
	if err != nil {
		return err
	}
	kube, err := kubernetes.NewForConfig(cp.RESTConfig)
	if err != nil {
		return err
	}
	defer func() {
		if retErr != nil {
			_ = g.Stop()
		}
	}()
	if err := g.waitAggregationLayer(ctx, kube); err != nil {
		return err
	}
	if err := ensureGardenerRBAC(ctx, kube); err != nil {
		return err
	}
	kubeconfig := filepath.Join(g.Dir, "kubeconfig")
	if err := g.writeKubeconfig(ctx, kube, cp.RESTConfig, kubeconfig); err != nil {
		return err
	}

	disabled := g.opts.DisableAdmissionPlugins
	if disabled == nil {
		disabled = DefaultDisabledGardenerAdmissionPlugins
	}
	certs := g.certDir()
	args := []string{
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(g.port),
		"--tls-cert-file=" + filepath.Join(certs, "tls.crt"),
		"--tls-private-key-file=" + filepath.Join(certs, "tls.key"),
		"--etcd-servers=" + etcdURL,
		// kube-apiserver keeps its objects under /registry; a prefix of its
		// own keeps Gardener's apart in the shared etcd.
		"--etcd-prefix=" + gardenerEtcdPrefix,
		"--cluster-identity=graft-local",
		"--authentication-kubeconfig=" + kubeconfig,
		"--authorization-kubeconfig=" + kubeconfig,
		"--kubeconfig=" + kubeconfig,
		"--log-format=text",
	}
	if len(disabled) > 0 {
		args = append(args, "--disable-admission-plugins="+strings.Join(disabled, ","))
	}
	if len(g.opts.FeatureGates) > 0 {
		args = append(args, "--feature-gates="+strings.Join(g.opts.FeatureGates, ","))
	}
	fmt.Fprintf(g.log, "starting gardener-apiserver %s on %s\n", GardenerVersion, g.URL)
	g.proc, err = startProcess(g.Dir, gardenerName, g.opts.Detach, g.binary, args...)
	if err != nil {
		return err
	}
	if err := writePid(g.Dir, pidFileGardener, g.proc.pid()); err != nil {
		return err
	}
	logFile := filepath.Join(g.Dir, gardenerName+".log")
	// /readyz is always allowed without credentials (the generic API server's
	// default), and turns ready once the informers of the admission plugins
	// have synced.
	if err := waitHTTP(ctx, g.URL+"/readyz", nil, 3*time.Minute, g.proc.exited); err != nil {
		return fmt.Errorf("gardener-apiserver did not become ready: %w (log: %s)", err, logFile)
	}
	if err := g.register(ctx, cp.RESTConfig, kube); err != nil {
		return fmt.Errorf("registering gardener-apiserver with kube-apiserver: %w (log: %s)", err, logFile)
	}
	fmt.Fprintf(g.log, "gardener-apiserver registered; %s served through %s\n", groupVersionList(), cp.APIServerURL)
	return nil
}

// Stop stops gardener-apiserver (before the control plane it depends on) and
// removes a temporary directory.
func (g *Gardener) Stop() error {
	if g == nil {
		return nil
	}
	err := stopCmd(g.proc)
	g.proc = nil
	_ = os.Remove(filepath.Join(g.Dir, pidFileGardener))
	if g.removeDir {
		err = errors.Join(err, os.RemoveAll(g.Dir))
	}
	return err
}

// RestartWithFeatureGates stops gardener-apiserver and starts it again on
// the same state, address and certificates with the given feature gates
// (none: Gardener's defaults), for the tests of a gated behaviour; clients
// see the API go away for the restart.
func (g *Gardener) RestartWithFeatureGates(ctx context.Context, cp *ControlPlane, gates ...string) error {
	if err := stopCmd(g.proc); err != nil {
		return fmt.Errorf("stopping gardener-apiserver: %w", err)
	}
	g.proc = nil
	_ = os.Remove(filepath.Join(g.Dir, pidFileGardener))
	g.opts.FeatureGates = gates
	return g.Start(ctx, cp)
}

// StopGardenerDir stops a detached gardener-apiserver whose state is in dir
// (hack/local-garden.sh down); call it before StopDir of its control plane.
func StopGardenerDir(dir string) error {
	pid, err := readPid(dir, pidFileGardener)
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return err
	}
	err = stopPid(pid)
	_ = os.Remove(filepath.Join(dir, pidFileGardener))
	return err
}

// GardenerRunning reports whether the detached gardener-apiserver in dir is up.
func GardenerRunning(dir string) bool {
	pid, err := readPid(dir, pidFileGardener)
	return err == nil && syscall.Kill(pid, 0) == nil
}

// waitAggregationLayer waits until kube-apiserver publishes this Gardener's
// front-proxy CA in kube-system/extension-apiserver-authentication, where
// gardener-apiserver reads whom to trust for the request headers. A control
// plane started without APIServerArgs never does, and every request proxied to
// gardener-apiserver would be refused; say so at once instead.
func (g *Gardener) waitAggregationLayer(ctx context.Context, kube kubernetes.Interface) error {
	frontProxyCA, err := os.ReadFile(filepath.Join(g.certDir(), "front-proxy-ca.crt"))
	if err != nil {
		return err
	}
	var found string
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		cm, err := kube.CoreV1().ConfigMaps(metav1.NamespaceSystem).Get(ctx, "extension-apiserver-authentication", metav1.GetOptions{})
		if err != nil {
			if ctx.Err() == nil { // not a read cut short by the deadline
				found = err.Error()
			}
			return false, nil
		}
		published := cm.Data["requestheader-client-ca-file"]
		if strings.Contains(published, strings.TrimSpace(string(frontProxyCA))) {
			return true, nil
		}
		found = fmt.Sprintf("requestheader-client-ca-file holds %d bytes, not this Gardener's front-proxy CA", len(published))
		return false, nil
	})
	if err != nil {
		return fmt.Errorf("kube-apiserver does not trust gardener-apiserver's front proxy (%s): start the control plane with Gardener.APIServerArgs in ControlPlaneOptions.ExtraAPIServerArgs", found)
	}
	return nil
}

// etcdClientURL is the address etcd serves clients on, read from the flags
// this control plane started it with.
func (cp *ControlPlane) etcdClientURL() (string, error) {
	if cp.etcd == nil {
		return "", errors.New("etcd was not started by this control plane")
	}
	const flag = "--advertise-client-urls="
	for _, arg := range cp.etcd.cmd.Args {
		if url, ok := strings.CutPrefix(arg, flag); ok {
			return url, nil
		}
	}
	return "", fmt.Errorf("etcd was started without %s", strings.TrimSuffix(flag, "="))
}

// ensureGardenerRBAC gives gardener-apiserver's ServiceAccount what Gardener's
// own deployment gives it: every verb on every resource (its admission plugins
// read and write core objects across namespaces and all of Gardener's groups),
// and the standard roles of an aggregated API server, which delegates
// authentication and authorization to kube-apiserver and reads the
// request-header settings from kube-system.
func ensureGardenerRBAC(ctx context.Context, kube kubernetes.Interface) error {
	// kube-apiserver creates kube-system in the background; it can report
	// ready a moment before.
	if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := kube.CoreV1().Namespaces().Get(ctx, metav1.NamespaceSystem, metav1.GetOptions{})
		return err == nil, nil
	}); err != nil {
		return fmt.Errorf("waiting for namespace kube-system: %w", err)
	}
	subject := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: gardenerName, Namespace: metav1.NamespaceSystem}}
	creates := []func() error{
		func() error {
			_, err := kube.CoreV1().ServiceAccounts(metav1.NamespaceSystem).Create(ctx,
				&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: gardenerName}}, metav1.CreateOptions{})
			return err
		},
		func() error {
			_, err := kube.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{
				ObjectMeta: metav1.ObjectMeta{Name: gardenerClusterRole},
				Rules:      []rbacv1.PolicyRule{{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"*"}}},
			}, metav1.CreateOptions{})
			return err
		},
		func() error {
			_, err := kube.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
				ObjectMeta: metav1.ObjectMeta{Name: gardenerClusterRole},
				RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: gardenerClusterRole},
				Subjects:   subject,
			}, metav1.CreateOptions{})
			return err
		},
		func() error {
			_, err := kube.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
				ObjectMeta: metav1.ObjectMeta{Name: "gardener.cloud:apiserver:auth-delegator"},
				RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "system:auth-delegator"},
				Subjects:   subject,
			}, metav1.CreateOptions{})
			return err
		},
		func() error {
			_, err := kube.RbacV1().RoleBindings(metav1.NamespaceSystem).Create(ctx, &rbacv1.RoleBinding{
				ObjectMeta: metav1.ObjectMeta{Name: "gardener.cloud:apiserver:auth-reader"},
				RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "extension-apiserver-authentication-reader"},
				Subjects:   subject,
			}, metav1.CreateOptions{})
			return err
		},
	}
	for _, create := range creates {
		// A restart on the same control plane finds them in place.
		if err := create(); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating gardener-apiserver's ServiceAccount and RBAC: %w", err)
		}
	}
	return nil
}

// writeKubeconfig writes the kubeconfig gardener-apiserver uses for
// kube-apiserver, with a token of its ServiceAccount that outlives a local
// garden left running for weeks (nothing refreshes it).
func (g *Gardener) writeKubeconfig(ctx context.Context, kube kubernetes.Interface, admin *rest.Config, path string) error {
	tr, err := kube.CoreV1().ServiceAccounts(metav1.NamespaceSystem).CreateToken(ctx, gardenerName,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{
			ExpirationSeconds: ptr.To(int64(gardenerTokenLifetime / time.Second)),
		}}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("requesting a token for ServiceAccount kube-system/%s: %w", gardenerName, err)
	}
	cfg := &rest.Config{Host: admin.Host, BearerToken: tr.Status.Token, TLSClientConfig: rest.TLSClientConfig{CAData: admin.CAData, Insecure: admin.Insecure}}
	return WriteKubeconfig(path, cfg, gardenerName)
}

var (
	apiServiceResource = schema.GroupVersionResource{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"}
	shootResource      = schema.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "shoots"}
)

// register points kube-apiserver at gardener-apiserver: a Service of type
// ExternalName (kube-apiserver resolves it to localhost and the port of the
// APIService) and one APIService per group version, trusting the serving CA.
// It waits until kube-apiserver reports each APIService Available, discovery
// lists resources in each group version, and Shoots can be listed; Gardener's
// own test environment found that discovery can answer before reads through
// etcd work.
func (g *Gardener) register(ctx context.Context, admin *rest.Config, kube kubernetes.Interface) error {
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: gardenerName, Namespace: metav1.NamespaceSystem},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "localhost"},
	}
	if _, err := kube.CoreV1().Services(metav1.NamespaceSystem).Create(ctx, svc, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating Service kube-system/%s: %w", gardenerName, err)
	}
	dyn, err := dynamic.NewForConfig(admin)
	if err != nil {
		return err
	}
	apiServices := dyn.Resource(apiServiceResource)
	for _, gv := range GardenerAPIGroupVersions {
		want := g.apiService(gv)
		current, err := apiServices.Get(ctx, want.GetName(), metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			_, err = apiServices.Create(ctx, want, metav1.CreateOptions{})
		case err == nil:
			// A restart has a new port and CA: replace the spec, keeping the
			// resourceVersion read so that the update is preconditioned.
			current.Object["spec"] = want.Object["spec"]
			_, err = apiServices.Update(ctx, current, metav1.UpdateOptions{})
		}
		if err != nil {
			return fmt.Errorf("creating APIService %s: %w", want.GetName(), err)
		}
	}

	disco, err := discovery.NewDiscoveryClientForConfig(admin)
	if err != nil {
		return err
	}
	var waiting string
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 3*time.Minute, true, func(ctx context.Context) (done bool, _ error) {
		if err := g.proc.exited(); err != nil {
			return false, err
		}
		// Keep the reason of the last complete check: a check cut short by
		// the deadline would only report the deadline.
		last := waiting
		defer func() {
			if !done && ctx.Err() != nil {
				waiting = last
			}
		}()
		for _, gv := range GardenerAPIGroupVersions {
			name := apiServiceName(gv)
			obj, err := apiServices.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				waiting = fmt.Sprintf("reading APIService %s: %v", name, err)
				return false, nil
			}
			if ok, why := apiServiceAvailable(obj); !ok {
				waiting = fmt.Sprintf("APIService %s not available: %s", name, why)
				return false, nil
			}
			list, err := disco.ServerResourcesForGroupVersion(gv.String())
			if err != nil || len(list.APIResources) == 0 {
				waiting = fmt.Sprintf("discovery of %s: %v", gv, err)
				return false, nil
			}
		}
		if _, err := dyn.Resource(shootResource).List(ctx, metav1.ListOptions{Limit: 1}); err != nil {
			waiting = fmt.Sprintf("listing shoots: %v", err)
			return false, nil
		}
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("%w (waiting for: %s)", err, waiting)
	}
	return nil
}

func (g *Gardener) apiService(gv schema.GroupVersion) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiregistration.k8s.io/v1",
		"kind":       "APIService",
		"metadata":   map[string]any{"name": apiServiceName(gv)},
		"spec": map[string]any{
			"group":   gv.Group,
			"version": gv.Version,
			"service": map[string]any{
				"namespace": metav1.NamespaceSystem,
				"name":      gardenerName,
				"port":      int64(g.port),
			},
			"caBundle": base64.StdEncoding.EncodeToString(g.CABundle),
			// The priorities of Gardener's own deployment.
			"groupPriorityMinimum": int64(10000),
			"versionPriority":      int64(20),
		},
	}}
}

func apiServiceName(gv schema.GroupVersion) string { return gv.Version + "." + gv.Group }

// apiServiceAvailable reads the Available condition kube-apiserver sets once
// it has reached the backing server's discovery.
func apiServiceAvailable(obj *unstructured.Unstructured) (bool, string) {
	conditions, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, c := range conditions {
		cond, ok := c.(map[string]any)
		if !ok || cond["type"] != "Available" {
			continue
		}
		if cond["status"] == "True" {
			return true, ""
		}
		return false, fmt.Sprintf("%v: %v", cond["reason"], cond["message"])
	}
	return false, "no Available condition yet"
}

func groupVersionList() string {
	names := make([]string, 0, len(GardenerAPIGroupVersions))
	for _, gv := range GardenerAPIGroupVersions {
		names = append(names, gv.String())
	}
	return strings.Join(names, ", ")
}

// GardenerAPIServerBinary returns the path of the gardener-apiserver binary:
// $GRAFT_GARDENER_APISERVER when set, otherwise the cached build of
// hack/build-gardener.sh.
func GardenerAPIServerBinary() (string, error) {
	return gardenerBinary("gardener-apiserver", "GRAFT_GARDENER_APISERVER")
}

// GardenletBinary returns the path of the gardenlet binary: $GRAFT_GARDENLET
// when set, otherwise the cached build of hack/build-gardener.sh.
func GardenletBinary() (string, error) {
	return gardenerBinary("gardenlet", "GRAFT_GARDENLET")
}

// gardenerBinary finds one of Gardener's commands. Unlike kube-apiserver it is
// not built on demand: a cold build takes 5 to 35 minutes, too long to hide
// inside a test run, so a missing binary is an error that says how to build it.
func gardenerBinary(command, env string) (string, error) {
	if bin := os.Getenv(env); bin != "" {
		if _, err := os.Stat(bin); err != nil {
			return "", fmt.Errorf("%s names %s: %w", env, bin, err)
		}
		return bin, nil
	}
	dir := os.Getenv("GRAFT_CACHE_DIR")
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("locating the cache directory of hack/build-gardener.sh: %w", err)
		}
		dir = filepath.Join(cache, "graft")
	}
	bin := filepath.Join(dir, command+"-"+GardenerVersion)
	if _, err := os.Stat(bin); err != nil {
		return "", fmt.Errorf("%s %s is not built on this machine (%s: %v): build it once with `hack/install-deps.sh %s` (5 to 35 minutes), or set %s to a binary", command, GardenerVersion, bin, errors.Unwrap(err), command, env)
	}
	return bin, nil
}
