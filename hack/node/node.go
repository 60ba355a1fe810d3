package node

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/graft-dev/graft/test/framework"
)

// Name is the node's name: kubelet's --hostname-override, kube-proxy's
// hostnameOverride and the common name of kubelet's certificate.
const Name = "graft-local-node"

// Binaries are the programs a node runs, as hack/build-node.sh prints them.
type Binaries struct {
	Kubelet               string `json:"kubelet"`
	KubeProxy             string `json:"kube-proxy"`
	KubeControllerManager string `json:"kube-controller-manager"`
	KubeScheduler         string `json:"kube-scheduler"`
	Containerd            string `json:"containerd"`
	Ctr                   string `json:"ctr"`
	Runc                  string `json:"runc"`
	CNIBinDir             string `json:"cni-bin-dir"`
}

// ParseBinaries reads hack/build-node.sh's output: "<name> <path>" lines.
func ParseBinaries(r io.Reader) (Binaries, error) {
	m := map[string]string{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		name, path, ok := strings.Cut(strings.TrimSpace(sc.Text()), " ")
		if ok {
			m[name] = path
		}
	}
	if err := sc.Err(); err != nil {
		return Binaries{}, err
	}
	// The same names as the JSON tags: one decoding for both forms.
	data, _ := json.Marshal(m)
	var b Binaries
	if err := json.Unmarshal(data, &b); err != nil {
		return Binaries{}, err
	}
	for name, path := range map[string]string{
		"kubelet": b.Kubelet, "kube-proxy": b.KubeProxy, "kube-controller-manager": b.KubeControllerManager,
		"kube-scheduler": b.KubeScheduler, "containerd": b.Containerd, "ctr": b.Ctr, "runc": b.Runc, "cni-bin-dir": b.CNIBinDir,
	} {
		if path == "" {
			return Binaries{}, fmt.Errorf("hack/build-node.sh named no %s", name)
		}
		if _, err := os.Stat(path); err != nil {
			return Binaries{}, fmt.Errorf("%s: %w", name, err)
		}
	}
	return b, nil
}

// Prepare creates the node's certificates in dir before the garden's
// kube-apiserver starts, and returns the flags kube-apiserver needs for them:
// the CA that signs the node's client certificates, and its own client
// certificate for kubelet's API.
func Prepare(dir string) ([]string, error) {
	// Fail before the garden starts when the node could not (Up checks again).
	if err := machineFree(); err != nil {
		return nil, err
	}
	l := layout{dir: dir}
	if err := l.checkSocketPath(); err != nil {
		return nil, err
	}
	if err := writePKI(l.pki(), Name); err != nil {
		return nil, err
	}
	return append([]string{
		"--client-ca-file=" + l.cert("ca"),
		"--kubelet-client-certificate=" + l.cert("apiserver-kubelet-client"),
		"--kubelet-client-key=" + l.key("apiserver-kubelet-client"),
		// The node registers the bridge address; kube-apiserver reaches kubelet
		// there.
		"--kubelet-preferred-address-types=InternalIP",
	}, apiServerArgs...), nil
}

// Config is what Up needs to know about the garden and this machine.
type Config struct {
	// Dir holds the node's state and logs; Prepare wrote its certificates.
	Dir string
	// Admin is an admin client configuration of the garden's kube-apiserver.
	Admin *rest.Config
	// ServerCA is kube-apiserver's serving certificate, which the node's
	// components trust.
	ServerCA []byte
	// ServiceAccountKey is the key kube-apiserver verifies service account
	// tokens with; kube-controller-manager signs them with it.
	ServiceAccountKey string
	Binaries          Binaries
	// SandboxArchive is an OCI archive of the pod sandbox (pause) image.
	SandboxArchive string
	Log            io.Writer
}

// Up starts containerd, kube-controller-manager, kube-scheduler, kubelet and
// kube-proxy, and returns once the node is Ready. On error the caller runs
// Down.
func Up(ctx context.Context, c Config) error {
	l := layout{dir: c.Dir}
	logw := c.Log
	if logw == nil {
		logw = io.Discard
	}
	if err := l.checkSocketPath(); err != nil {
		return err
	}
	// The bridge, the node address and kubelet's cgroups are the machine's,
	// not the directory's: one local node per machine. The caller ran Down
	// for this directory, so whatever is left belongs to another.
	if err := machineFree(); err != nil {
		return err
	}
	if err := saveHostState(l); err != nil {
		return err
	}
	bins, err := json.MarshalIndent(c.Binaries, "", "  ")
	if err != nil {
		return err
	}
	if err := writeFile(l.path("binaries.json"), bins); err != nil {
		return err
	}
	kube, err := kubernetes.NewForConfig(c.Admin)
	if err != nil {
		return err
	}

	fmt.Fprintf(logw, "node: creating bridge %s with the node address %s\n", bridgeName, nodeIP)
	if err := ensureBridge(); err != nil {
		return err
	}
	// kube-proxy's Service rules must see traffic between pods on the same
	// bridge; saveHostState recorded the old value for Down.
	if err := writeSysctl("net/bridge/bridge-nf-call-iptables", "1"); err != nil {
		return err
	}

	sandboxImage, err := archiveImageName(c.SandboxArchive)
	if err != nil {
		return fmt.Errorf("the sandbox image: %w", err)
	}
	for _, d := range []string{l.containerdDir(), l.cniConfDir(), l.cniIPAMDir(), l.kubeletRoot(), l.podLogs()} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	if err := writeFile(l.containerdConfig(), []byte(containerdConfig(l, sandboxImage, c.Binaries.CNIBinDir, c.Binaries.Runc))); err != nil {
		return err
	}
	cni, err := cniConfig(l)
	if err != nil {
		return err
	}
	if err := writeFile(filepath.Join(l.cniConfDir(), "10-"+cniNetworkName+".conflist"), cni); err != nil {
		return err
	}
	fmt.Fprintf(logw, "node: starting containerd on %s\n", l.containerdSocket())
	if _, err := start(c.Dir, "containerd", c.Binaries.Containerd, "--config", l.containerdConfig()); err != nil {
		return err
	}
	if err := poll(ctx, time.Minute, c.Dir, "containerd", func() error {
		return l.ctr(c.Binaries.Ctr, io.Discard, "version")
	}); err != nil {
		return fmt.Errorf("containerd did not answer: %w (log: %s)", err, l.path("containerd.log"))
	}
	if _, err := importImage(l, c.Binaries.Ctr, c.SandboxArchive, logw); err != nil {
		return err
	}

	for _, name := range []string{"kubelet", "kube-controller-manager", "kube-scheduler", "kube-proxy"} {
		if err := writeKubeconfig(l, name, c.Admin.Host, c.ServerCA); err != nil {
			return err
		}
	}
	if err := bindNodes(ctx, kube); err != nil {
		return err
	}
	if err := publishAPIServer(ctx, kube, c.Admin.Host); err != nil {
		return err
	}

	ports, err := framework.FreePorts("127.0.0.1", 5)
	if err != nil {
		return err
	}
	kcmPort, schedPort, kubeletHealthz, proxyHealthz, proxyMetrics := ports[0], ports[1], ports[2], ports[3], ports[4]
	kubeletPorts, err := framework.FreePorts(nodeIP, 1)
	if err != nil {
		return err
	}

	if err := writeFile(l.path("apiserver-ca.crt"), c.ServerCA); err != nil {
		return err
	}
	fmt.Fprintf(logw, "node: starting kube-controller-manager on 127.0.0.1:%d\n", kcmPort)
	if _, err := start(c.Dir, "kube-controller-manager", c.Binaries.KubeControllerManager, append(l.controlPlaneArgs("kube-controller-manager", kcmPort),
		"--controllers=*",
		// Each controller acts as its own service account, with the roles
		// Kubernetes' default policy gives it.
		"--use-service-account-credentials=true",
		"--service-account-private-key-file="+c.ServiceAccountKey,
		"--root-ca-file="+l.path("apiserver-ca.crt"),
		"--cluster-signing-cert-file="+l.cert("ca"),
		"--cluster-signing-key-file="+l.key("ca"),
		"--service-cluster-ip-range="+serviceSubnet,
		// One replica: electing a leader would only delay the start.
		"--leader-elect=false",
		// Not the default under /usr/libexec, which it creates otherwise.
		"--flex-volume-plugin-dir="+l.path("kube-controller-manager", "volume-plugins"),
	)...); err != nil {
		return err
	}
	fmt.Fprintf(logw, "node: starting kube-scheduler on 127.0.0.1:%d\n", schedPort)
	if _, err := start(c.Dir, "kube-scheduler", c.Binaries.KubeScheduler,
		append(l.controlPlaneArgs("kube-scheduler", schedPort), "--leader-elect=false")...); err != nil {
		return err
	}
	for name, port := range map[string]int{"kube-controller-manager": kcmPort, "kube-scheduler": schedPort} {
		if err := pollHTTP(ctx, c.Dir, name, fmt.Sprintf("https://127.0.0.1:%d/healthz", port)); err != nil {
			return err
		}
	}

	kc, err := kubeletConfig(l, kubeletPorts[0], kubeletHealthz)
	if err != nil {
		return err
	}
	if err := writeFile(l.kubeletConfig(), kc); err != nil {
		return err
	}
	fmt.Fprintf(logw, "node: starting kubelet as %s on %s:%d\n", Name, nodeIP, kubeletPorts[0])
	if _, err := start(c.Dir, "kubelet", c.Binaries.Kubelet,
		"--config="+l.kubeletConfig(),
		"--kubeconfig="+l.kubeconfig("kubelet"),
		"--root-dir="+l.kubeletRoot(),
		"--cert-dir="+l.path("kubelet", "pki"),
		"--hostname-override="+Name,
		"--node-ip="+nodeIP,
	); err != nil {
		return err
	}
	pc, err := proxyConfig(l, Name, proxyHealthz, proxyMetrics)
	if err != nil {
		return err
	}
	if err := writeFile(l.proxyConfig(), pc); err != nil {
		return err
	}
	fmt.Fprintf(logw, "node: starting kube-proxy (iptables mode)\n")
	if _, err := start(c.Dir, "kube-proxy", c.Binaries.KubeProxy, "--config="+l.proxyConfig()); err != nil {
		return err
	}

	fmt.Fprintf(logw, "node: waiting for %s to be Ready\n", Name)
	// Generous: on a loaded two-core machine kubelet alone takes a minute.
	if err := poll(ctx, 5*time.Minute, c.Dir, "kubelet", func() error {
		node, err := kube.CoreV1().Nodes().Get(ctx, Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		for _, cond := range node.Status.Conditions {
			if cond.Type == corev1.NodeReady {
				if cond.Status == corev1.ConditionTrue {
					return nil
				}
				return fmt.Errorf("Ready=%s: %s", cond.Status, cond.Message)
			}
		}
		return errors.New("no Ready condition yet")
	}); err != nil {
		return fmt.Errorf("node %s did not become Ready: %w (log: %s)", Name, err, l.path("kubelet.log"))
	}
	if err := pollHTTP(ctx, c.Dir, "kube-proxy", fmt.Sprintf("http://127.0.0.1:%d/healthz", proxyHealthz)); err != nil {
		return err
	}
	// A pod can be created only once kube-controller-manager has made its
	// namespace's default ServiceAccount (the ServiceAccount admission plugin
	// refuses it before); wait for that in the default namespace so that the
	// node is usable when Up returns.
	if err := poll(ctx, 2*time.Minute, c.Dir, "kube-controller-manager", func() error {
		_, err := kube.CoreV1().ServiceAccounts(metav1.NamespaceDefault).Get(ctx, "default", metav1.GetOptions{})
		return err
	}); err != nil {
		return fmt.Errorf("kube-controller-manager made no default ServiceAccount: %w (log: %s)", err, l.path("kube-controller-manager.log"))
	}
	fmt.Fprintf(logw, "node: %s Ready; logs in %s\n", Name, c.Dir)
	return nil
}

// Running reports whether the node in dir has its runtime and kubelet up.
func Running(dir string) bool {
	_, containerd := alive(dir, "containerd")
	_, kubelet := alive(dir, "kubelet")
	return containerd && kubelet
}

// Exists reports whether dir holds a node, running or left behind.
func Exists(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "binaries.json"))
	return err == nil
}

// bindNodes grants the group of node identities the role Kubernetes defines
// for kubelets. Kubernetes binds it to no one by default (clusters use the
// Node authorizer, which the garden's RBAC-only kube-apiserver does not run).
func bindNodes(ctx context.Context, kube kubernetes.Interface) error {
	crb := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "graft:local-node:system:nodes"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "system:node"},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.GroupKind, Name: "system:nodes"}},
	}
	_, err := kube.RbacV1().ClusterRoleBindings().Create(ctx, crb, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("binding system:nodes to system:node: %w", err)
	}
	return nil
}

// drainPods deletes the pods bound to the node, each with a one-second grace
// period, and waits until kubelet has stopped them and their sandboxes (their
// objects go only then): kubelet tears down each pod's network through the
// CNI plugin, which is cleaner than anything done behind its back.
func drainPods(ctx context.Context, admin *rest.Config, logw io.Writer) error {
	kube, err := kubernetes.NewForConfig(admin)
	if err != nil {
		return err
	}
	onNode := metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("spec.nodeName", Name).String()}
	pods, err := kube.CoreV1().Pods(metav1.NamespaceAll).List(ctx, onNode)
	if err != nil {
		return err
	}
	if len(pods.Items) == 0 {
		return nil
	}
	fmt.Fprintf(logw, "node: deleting %d pods\n", len(pods.Items))
	grace := int64(1)
	for _, p := range pods.Items {
		err := kube.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: &grace})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting pod %s/%s: %w", p.Namespace, p.Name, err)
		}
	}
	return wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, 90*time.Second, true, func(ctx context.Context) (bool, error) {
		pods, err := kube.CoreV1().Pods(metav1.NamespaceAll).List(ctx, onNode)
		if err != nil {
			return false, nil
		}
		return len(pods.Items) == 0, nil
	})
}

// checkSocketPath fails when containerd's socket paths would not fit in the
// 108 bytes a unix socket address holds.
func (l layout) checkSocketPath() error {
	if n := len(l.containerdSocket()) + len(".ttrpc"); n >= 108 {
		return fmt.Errorf("the node's directory %s is too long for containerd's socket (%d bytes, at most 107): set GRAFT_GARDEN_DIR to a shorter path", l.dir, n)
	}
	return nil
}

// ctr runs containerd's client against this node's containerd.
func (l layout) ctr(bin string, out io.Writer, args ...string) error {
	cmd := exec.Command(bin, append([]string{"--address", l.containerdSocket()}, args...)...)
	var stderr strings.Builder
	cmd.Stdout, cmd.Stderr = out, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("ctr %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return nil
}

// controlPlaneArgs are the flags kube-controller-manager and kube-scheduler
// share: their kubeconfig for the garden, for authenticating and authorizing
// requests to them too, and a secure port on loopback with a self-signed
// certificate in a directory of their own.
func (l layout) controlPlaneArgs(name string, port int) []string {
	kubeconfig := l.kubeconfig(name)
	return []string{
		"--kubeconfig=" + kubeconfig,
		"--authentication-kubeconfig=" + kubeconfig,
		"--authorization-kubeconfig=" + kubeconfig,
		"--bind-address=127.0.0.1",
		fmt.Sprintf("--secure-port=%d", port),
		"--cert-dir=" + l.path(name),
	}
}

// ImportImage imports an OCI image archive into the running node's
// containerd, where kubelet finds it (pull policy Never or IfNotPresent), and
// returns the image's name.
func ImportImage(dir, archive string, log io.Writer) (string, error) {
	if !Running(dir) {
		return "", fmt.Errorf("no node runs in %s", dir)
	}
	data, err := os.ReadFile(filepath.Join(dir, "binaries.json"))
	if err != nil {
		return "", err
	}
	var bins Binaries
	if err := json.Unmarshal(data, &bins); err != nil {
		return "", fmt.Errorf("%s: %w", filepath.Join(dir, "binaries.json"), err)
	}
	return importImage(layout{dir: dir}, bins.Ctr, archive, log)
}

// importImage imports archive into containerd's k8s.io namespace, the one
// kubelet uses, and checks that the image it names is there.
func importImage(l layout, ctr, archive string, log io.Writer) (string, error) {
	if log == nil {
		log = io.Discard
	}
	name, err := archiveImageName(archive)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(log, "node: importing the image %s from %s\n", name, archive)
	if err := l.ctr(ctr, log, "-n", "k8s.io", "images", "import", archive); err != nil {
		return "", fmt.Errorf("importing %s: %w", archive, err)
	}
	var names strings.Builder
	if err := l.ctr(ctr, &names, "-n", "k8s.io", "images", "ls", "-q"); err != nil {
		return "", err
	}
	if !containsLine(names.String(), name) {
		return "", fmt.Errorf("%s holds no image named %s after the import (containerd has: %s)", archive, name, strings.Join(strings.Fields(names.String()), ", "))
	}
	return name, nil
}

// poll calls check until it succeeds, timeout passes, or the process recorded
// as name in dir is gone (then its log says why).
func poll(ctx context.Context, timeout time.Duration, dir, name string, check func() error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var last error
	for {
		if last = check(); last == nil {
			return nil
		}
		if pid, ok := alive(dir, name); !ok {
			return fmt.Errorf("%s exited (last check: %v; %s)", name, last, describe(pid, dir))
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (last check: %v)", ctx.Err(), last)
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// pollHTTP waits until url answers 200. The components serve their health
// endpoints with self-signed certificates; this is a readiness probe only.
func pollHTTP(ctx context.Context, dir, name, url string) error {
	client := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	err := poll(ctx, 2*time.Minute, dir, name, func() error {
		resp, err := client.Get(url)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%s: %s: %s", url, resp.Status, strings.TrimSpace(string(body)))
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s did not become healthy: %w (log: %s)", name, err, filepath.Join(dir, name+".log"))
	}
	return nil
}

func containsLine(text, line string) bool {
	for _, l := range strings.Split(text, "\n") {
		if strings.TrimSpace(l) == line {
			return true
		}
	}
	return false
}
