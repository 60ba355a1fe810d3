package controlplane

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	mathrand "math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// ControlPlaneOptions tune StartControlPlane.
type ControlPlaneOptions struct {
	// Dir holds the control plane's state: data, certificates, logs, pid files and
	// the kubeconfig. Empty means a new temporary directory, removed by Stop.
	Dir string
	// Detach lets etcd and kube-apiserver outlive the calling process (for
	// hack/local-garden.sh up); StopDir stops them later.
	Detach bool
	// Log receives progress lines; nil discards them.
	Log io.Writer
	// ExtraAPIServerArgs are appended to kube-apiserver's flags, e.g.
	// gardener-apiserver's front proxy (Gardener.APIServerArgs).
	ExtraAPIServerArgs []string
}

// ControlPlane is a running etcd and kube-apiserver on loopback.
type ControlPlane struct {
	// Dir holds the state of the control plane.
	Dir string
	// Kubeconfig is the path of an admin (system:masters) kubeconfig.
	Kubeconfig string
	// RESTConfig is the admin configuration.
	RESTConfig *rest.Config
	// APIServerURL is the kube-apiserver's address.
	APIServerURL string
	// AuditLog is the kube-apiserver's audit log (JSON lines): one entry per
	// completed write other than a Lease's, with the user who sent it, so that
	// tests can tell which replica wrote what.
	AuditLog string

	removeDir bool
	etcd      *process
	apiserver *process
	log       io.Writer
}

const (
	adminUser      = "graft-admin"
	pidFileEtcd    = "etcd.pid"
	pidFileAPI     = "kube-apiserver.pid"
	kubeconfigName = "kubeconfig"
)

// StartControlPlane starts etcd and kube-apiserver on free loopback ports,
// writes an admin kubeconfig and waits until the API server is ready. It does
// not install CRDs; see InstallCRDs.
func StartControlPlane(ctx context.Context, opts ControlPlaneOptions) (_ *ControlPlane, retErr error) {
	logw := opts.Log
	if logw == nil {
		logw = io.Discard
	}
	etcdBin, err := EtcdBinary()
	if err != nil {
		return nil, err
	}
	apiBin, err := KubeAPIServerBinary()
	if err != nil {
		return nil, err
	}

	cp := &ControlPlane{Dir: opts.Dir, log: logw}
	if cp.Dir == "" {
		dir, err := os.MkdirTemp("", "graft-garden-")
		if err != nil {
			return nil, fmt.Errorf("creating the control plane directory: %w", err)
		}
		cp.Dir, cp.removeDir = dir, true
	}
	if err := os.MkdirAll(cp.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating %s: %w", cp.Dir, err)
	}
	defer func() {
		if retErr != nil {
			_ = cp.Stop()
		}
	}()

	ports, err := FreePorts("127.0.0.1", 3)
	if err != nil {
		return nil, err
	}
	etcdClient, etcdPeer, apiPort := ports[0], ports[1], ports[2]

	// etcd's data lives on tmpfs when there is one: writes skip the fsync cost,
	// and a test garden needs no durability.
	dataParent := cp.Dir
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		dataParent = "/dev/shm"
	}
	dataDir, err := os.MkdirTemp(dataParent, "graft-etcd-")
	if err != nil {
		return nil, fmt.Errorf("creating the etcd data directory: %w", err)
	}
	if err := os.WriteFile(filepath.Join(cp.Dir, "etcd-data-dir"), []byte(dataDir), 0o644); err != nil {
		return nil, err
	}
	etcdURL := fmt.Sprintf("http://127.0.0.1:%d", etcdClient)
	fmt.Fprintf(logw, "starting etcd on %s\n", etcdURL)
	cp.etcd, err = startProcess(cp.Dir, "etcd", opts.Detach, etcdBin,
		"--name=graft",
		"--data-dir="+dataDir,
		"--listen-client-urls="+etcdURL,
		"--advertise-client-urls="+etcdURL,
		fmt.Sprintf("--listen-peer-urls=http://127.0.0.1:%d", etcdPeer),
		fmt.Sprintf("--initial-advertise-peer-urls=http://127.0.0.1:%d", etcdPeer),
		fmt.Sprintf("--initial-cluster=graft=http://127.0.0.1:%d", etcdPeer),
		"--unsafe-no-fsync",
		"--quota-backend-bytes=8589934592",
		"--log-level=warn",
	)
	if err != nil {
		return nil, err
	}
	if err := writePid(cp.Dir, pidFileEtcd, cp.etcd.pid()); err != nil {
		return nil, err
	}
	if err := waitHTTP(ctx, etcdURL+"/health", nil, 30*time.Second, cp.etcd.exited); err != nil {
		return nil, fmt.Errorf("etcd did not become healthy: %w (log: %s)", err, filepath.Join(cp.Dir, "etcd.log"))
	}

	certDir := filepath.Join(cp.Dir, "certs")
	if err := os.MkdirAll(certDir, 0o755); err != nil {
		return nil, err
	}
	saKey := filepath.Join(certDir, "sa.key")
	if err := writeRSAKey(saKey); err != nil {
		return nil, err
	}
	token, err := randomToken()
	if err != nil {
		return nil, err
	}
	tokenFile := filepath.Join(certDir, "tokens.csv")
	if err := os.WriteFile(tokenFile, []byte(fmt.Sprintf("%s,%s,%s-uid,system:masters\n", token, adminUser, adminUser)), 0o600); err != nil {
		return nil, err
	}

	auditPolicy := filepath.Join(cp.Dir, "audit-policy.yaml")
	if err := os.WriteFile(auditPolicy, []byte(auditPolicyYAML), 0o644); err != nil {
		return nil, err
	}
	cp.AuditLog = filepath.Join(cp.Dir, "audit.log")

	cp.APIServerURL = fmt.Sprintf("https://127.0.0.1:%d", apiPort)
	fmt.Fprintf(logw, "starting kube-apiserver on %s\n", cp.APIServerURL)
	apiArgs := []string{
		"--etcd-servers=" + etcdURL,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		// No Service endpoints for the API server: they may not point at loopback,
		// and nothing in a test garden needs them.
		"--endpoint-reconciler-type=none",
		fmt.Sprintf("--secure-port=%d", apiPort),
		"--cert-dir=" + certDir,
		"--token-auth-file=" + tokenFile,
		"--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + saKey,
		"--service-account-signing-key-file=" + saKey,
		"--api-audiences=https://kubernetes.default.svc.cluster.local",
		"--service-cluster-ip-range=10.0.0.0/24",
		"--allow-privileged=false",
		"--audit-policy-file=" + auditPolicy,
		"--audit-log-path=" + cp.AuditLog,
		"--audit-log-format=json",
		"--v=0",
	}
	cp.apiserver, err = startProcess(cp.Dir, "kube-apiserver", opts.Detach, apiBin, append(apiArgs, opts.ExtraAPIServerArgs...)...)
	if err != nil {
		return nil, err
	}
	if err := writePid(cp.Dir, pidFileAPI, cp.apiserver.pid()); err != nil {
		return nil, err
	}

	cfg := &rest.Config{
		Host:            cp.APIServerURL,
		BearerToken:     token,
		TLSClientConfig: rest.TLSClientConfig{Insecure: true},
		QPS:             -1, // no client-side rate limit: tests measure the server
	}
	if err := waitHTTP(ctx, cp.APIServerURL+"/readyz", map[string]string{"Authorization": "Bearer " + token}, 90*time.Second, cp.apiserver.exited); err != nil {
		return nil, fmt.Errorf("kube-apiserver did not become ready: %w (log: %s)", err, filepath.Join(cp.Dir, "kube-apiserver.log"))
	}
	// The API server generated a self-signed serving certificate for 127.0.0.1;
	// trust it instead of skipping verification.
	if ca, err := os.ReadFile(filepath.Join(certDir, "apiserver.crt")); err == nil {
		cfg.TLSClientConfig = rest.TLSClientConfig{CAData: ca}
	}
	cp.RESTConfig = cfg
	cp.Kubeconfig = filepath.Join(cp.Dir, kubeconfigName)
	if err := WriteKubeconfig(cp.Kubeconfig, cfg, "graft-local"); err != nil {
		return nil, err
	}
	fmt.Fprintf(logw, "kube-apiserver ready; kubeconfig %s\n", cp.Kubeconfig)
	return cp, nil
}

// auditPolicyYAML records writes at the Metadata level, once they completed;
// reads and the Leases every replica renews each second are left out.
const auditPolicyYAML = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: None
  resources: [{group: coordination.k8s.io, resources: [leases]}]
- level: None
  verbs: [get, list, watch]
- level: Metadata
  verbs: [create, update, patch, delete, deletecollection]
- level: None
`

// Stop stops kube-apiserver and then etcd (in that order: kube-apiserver hangs
// on SIGTERM when etcd is gone) and removes a temporary directory.
func (cp *ControlPlane) Stop() error {
	if cp == nil {
		return nil
	}
	var errs []error
	errs = append(errs, stopCmd(cp.apiserver), stopCmd(cp.etcd))
	cp.apiserver, cp.etcd = nil, nil
	errs = append(errs, removeEtcdData(cp.Dir))
	if cp.removeDir {
		errs = append(errs, os.RemoveAll(cp.Dir))
	}
	return errors.Join(errs...)
}

// StopAPIServer stops only kube-apiserver, for tests of how components survive
// an API server restart. RestartAPIServer starts it again with the same flags.
func (cp *ControlPlane) StopAPIServer() error {
	err := stopCmd(cp.apiserver)
	return err
}

// RestartAPIServer starts kube-apiserver again after StopAPIServer, on the same
// port and with the same flags, and waits until it is ready.
func (cp *ControlPlane) RestartAPIServer(ctx context.Context) error {
	if cp.apiserver == nil {
		return errors.New("kube-apiserver was not started by this control plane")
	}
	args := cp.apiserver.cmd.Args
	next, err := startProcess(cp.Dir, "kube-apiserver", false, args[0], args[1:]...)
	if err != nil {
		return err
	}
	cp.apiserver = next
	if err := writePid(cp.Dir, pidFileAPI, next.pid()); err != nil {
		return err
	}
	return waitHTTP(ctx, cp.APIServerURL+"/readyz", map[string]string{"Authorization": "Bearer " + cp.RESTConfig.BearerToken}, 90*time.Second, next.exited)
}

// StopDir stops a detached control plane started in dir (hack/local-garden.sh
// down): kube-apiserver first, then etcd.
func StopDir(dir string) error {
	var errs []error
	for _, name := range []string{pidFileAPI, pidFileEtcd} {
		pid, err := readPid(dir, name)
		if err != nil {
			if !os.IsNotExist(err) {
				errs = append(errs, err)
			}
			continue
		}
		errs = append(errs, stopPid(pid))
		_ = os.Remove(filepath.Join(dir, name))
	}
	errs = append(errs, removeEtcdData(dir))
	return errors.Join(errs...)
}

// Running reports whether the detached control plane in dir is up.
func Running(dir string) bool {
	for _, name := range []string{pidFileAPI, pidFileEtcd} {
		pid, err := readPid(dir, name)
		if err != nil || syscall.Kill(pid, 0) != nil {
			return false
		}
	}
	return true
}

// WriteKubeconfig writes cfg as a kubeconfig file with one context named name.
func WriteKubeconfig(path string, cfg *rest.Config, name string) error {
	kc := clientcmdapi.NewConfig()
	kc.Clusters[name] = &clientcmdapi.Cluster{
		Server:                   cfg.Host,
		CertificateAuthorityData: cfg.CAData,
		InsecureSkipTLSVerify:    cfg.Insecure,
	}
	kc.AuthInfos[name] = &clientcmdapi.AuthInfo{Token: cfg.BearerToken}
	kc.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name, Namespace: "default"}
	kc.CurrentContext = name
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		return fmt.Errorf("writing kubeconfig %s: %w", path, err)
	}
	return nil
}

// process is a started child; done is closed when it exits.
type process struct {
	cmd  *exec.Cmd
	done chan struct{}
	// log is the file its output goes to.
	log string
}

func (p *process) pid() int { return p.cmd.Process.Pid }

// exitLogLines is how much of its log an error about a process that ended
// quotes.
const exitLogLines = 15

// exited reports an error once the process has ended, with the last lines of
// its log: a process that ends while starting says why there, and a test's
// temporary directory, log included, is gone once the run has failed.
func (p *process) exited() error {
	select {
	case <-p.done:
		return fmt.Errorf("%s exited: %v; the last lines of its log:\n%s", filepath.Base(p.cmd.Path), p.cmd.ProcessState, lastLines(p.log, exitLogLines))
	default:
		return nil
	}
}

// lastLines returns the last n lines of the file, or why it cannot.
func lastLines(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func startProcess(dir, name string, detach bool, bin string, args ...string) (*process, error) {
	return startChild(dir, name, detach, nil, bin, args...)
}

// startChild is startProcess with the environment env (nil: this process's).
func startChild(dir, name string, detach bool, env []string, bin string, args ...string) (*process, error) {
	logFile, err := os.OpenFile(filepath.Join(dir, name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// Its own process group: a Ctrl-C meant for the test runner or the demo
	// must not kill the control plane before the orderly shutdown.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if !detach {
		cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	// The child holds its own descriptor.
	logFile.Close()
	p := &process{cmd: cmd, done: make(chan struct{}), log: logFile.Name()}
	go func() {
		_ = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

func stopCmd(p *process) error {
	if p == nil {
		return nil
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		return nil
	case <-time.After(15 * time.Second):
	}
	_ = p.cmd.Process.Kill()
	<-p.done
	return nil
}

func stopPid(pid int) error {
	if syscall.Kill(pid, syscall.SIGTERM) != nil {
		return nil // already gone
	}
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if syscall.Kill(pid, 0) != nil {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	return nil
}

func removeEtcdData(dir string) error {
	p := filepath.Join(dir, "etcd-data-dir")
	data, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	_ = os.Remove(p)
	return os.RemoveAll(strings.TrimSpace(string(data)))
}

func writePid(dir, name string, pid int) error {
	return os.WriteFile(filepath.Join(dir, name), []byte(strconv.Itoa(pid)), 0o644)
}

func readPid(dir, name string) (int, error) {
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(data)))
}

// FreePorts returns n ports on host that are free now, for processes the
// caller starts a while later (gardener-apiserver's port is chosen before
// the control plane starts). They come from below the kernel's ephemeral
// range (net.ipv4.ip_local_port_range), from which it gives ports to every
// bind to port 0 and every outgoing connection: a port found there by a
// listener that is then closed could be handed to any process on the machine
// before ours binds it, and the process would exit with "address already in
// use" (seen as a gardener-apiserver that did not start while other tests ran
// beside it). They also stay below Kubernetes' NodePort range (30000 on),
// where a kube-proxy on the machine would send a Service's traffic instead. A
// process never gets the same port twice.
func FreePorts(host string, n int) ([]int, error) {
	portsMu.Lock()
	defer portsMu.Unlock()
	ephemeralLow := min(ephemeralPortsStart(), nodePortsStart)
	if ephemeralLow-minPort < 1000 {
		return nil, fmt.Errorf("the ephemeral port range starts at %d, leaving too few ports between %d and it", ephemeralLow, minPort)
	}
	var ports []int
	for attempts := 0; len(ports) < n; attempts++ {
		if attempts == 1000 {
			return nil, fmt.Errorf("no free port on %s between %d and %d after %d attempts", host, minPort, ephemeralLow, attempts)
		}
		port := minPort + mathrand.IntN(ephemeralLow-minPort)
		if portsGiven[port] {
			continue
		}
		l, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
		if err != nil {
			continue // in use
		}
		l.Close()
		portsGiven[port] = true
		ports = append(ports, port)
	}
	return ports, nil
}

// minPort is the lowest port FreePorts chooses: graft's own fixed ports
// (the demo's and the charts' 10251, 19251 and the like) lie below it.
const minPort = 20000

// nodePortsStart is the first port of kube-apiserver's default NodePort range.
const nodePortsStart = 30000

var (
	portsMu    sync.Mutex
	portsGiven = map[int]bool{}
)

// ephemeralPortsStart is the first port of the kernel's ephemeral range, or
// Linux's default when it cannot be read.
func ephemeralPortsStart() int {
	const linuxDefault = 32768
	data, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return linuxDefault
	}
	fields := strings.Fields(string(data))
	if len(fields) != 2 {
		return linuxDefault
	}
	low, err := strconv.Atoi(fields[0])
	if err != nil {
		return linuxDefault
	}
	return low
}

// waitHTTP polls url until it answers 200, the timeout passes, or exited
// reports that the process behind it has ended.
func waitHTTP(ctx context.Context, url string, headers map[string]string, timeout time.Duration, exited func() error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	client := &http.Client{
		Timeout:   2 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, // readiness probe only
	}
	var last error
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		for k, v := range headers {
			req.Header.Set(k, v)
		}
		resp, err := client.Do(req)
		if err == nil {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("%s: %s: %s", url, resp.Status, strings.TrimSpace(string(body)))
		}
		last = err
		if err := exited(); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (last: %v)", ctx.Err(), last)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func writeRSAKey(path string) error {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return fmt.Errorf("generating the service account key: %w", err)
	}
	der := x509.MarshalPKCS1PrivateKey(key)
	return os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: der}), 0o600)
}

func randomToken() (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}
