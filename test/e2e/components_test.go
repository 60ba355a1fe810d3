//go:build e2e

package e2e

import (
	"context"
	"fmt"
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

	"github.com/graft-dev/graft/pkg/controlplane"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/graft-dev/graft/test/charts"
	"github.com/graft-dev/graft/test/framework"
)

// componentNamespace is where the charts' ServiceAccounts live, as in a real
// installation.
const componentNamespace = "graft-system"

// binaries builds the components once per suite.
type binaries struct {
	dir string
}

func buildBinaries(ctx context.Context, dir string, names ...string) (*binaries, error) {
	dir, err := controlplane.BuildBinaries(ctx, dir, names...)
	if err != nil {
		return nil, err
	}
	return &binaries{dir: dir}, nil
}

func (b *binaries) path(name string) string { return filepath.Join(b.dir, name) }

// component is one running instance of a graft daemon.
type component struct {
	// Name is chart-instance, e.g. graft-scheduler-0.
	Name        string
	Chart       string
	HealthAddr  string
	MetricsAddr string
	Dir         string

	cmd  *exec.Cmd
	log  *os.File
	done chan struct{}
	mu   sync.Mutex
	err  error
	// quiet are byte ranges of the log that LogContains skips: what the
	// process said while the API server was restarting (scenario 6), when
	// RBAC refuses everything until the API server's caches are back.
	quiet [][2]int64
	// forgiven is how many 403 answers the process got while the API server
	// restarted (scenario 6), for the same reason.
	forgiven float64
}

// componentOptions tune one instance.
type componentOptions struct {
	// Set are extra `helm template --set` values (the component config is .config).
	Set []string
	// SetJSON are extra `helm template --set-json` values.
	SetJSON []string
	// Release is the Helm release name; default the chart name. A second
	// installation of a chart needs its own, so that its RBAC objects do not
	// replace the first one's.
	Release string
}

// startComponent renders the chart, applies its ServiceAccount and RBAC,
// writes a kubeconfig holding a token of that ServiceAccount and the
// rendered component config (pointed at that kubeconfig and at free local
// ports), starts the binary and waits until /readyz answers 200.
func startComponent(ctx context.Context, env *framework.Env, bins *binaries, chart string, instance int, opts componentOptions) (*component, error) {
	c := &component{Name: fmt.Sprintf("%s-%d", chart, instance), Chart: chart, done: make(chan struct{})}
	dir, err := os.MkdirTemp("", "graft-e2e-"+c.Name+"-")
	if err != nil {
		return nil, err
	}
	c.Dir = dir
	healthPort, err := freePort()
	if err != nil {
		return nil, err
	}
	metricsPort, err := freePort()
	if err != nil {
		return nil, err
	}
	c.HealthAddr = "127.0.0.1:" + strconv.Itoa(healthPort)
	c.MetricsAddr = "127.0.0.1:" + strconv.Itoa(metricsPort)
	kubeconfig := filepath.Join(dir, "kubeconfig")

	set := append([]string{
		"config.clientConnection.kubeconfig=" + kubeconfig,
		"config.server.healthProbeBindAddress=" + c.HealthAddr,
		"config.server.metricsBindAddress=" + c.MetricsAddr,
	}, opts.Set...)
	release := opts.Release
	if release == "" {
		release = chart
	}
	config, err := charts.RunAsChart(ctx, env.Config(), chart, charts.TemplateOptions{Release: release, Namespace: componentNamespace, Set: set, SetJSON: opts.SetJSON}, kubeconfig)
	if err != nil {
		return nil, err
	}
	configPath := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(configPath, []byte(config), 0o600); err != nil {
		return nil, err
	}
	if err := c.start(bins.path(chart), configPath); err != nil {
		return nil, err
	}
	if err := c.waitReady(ctx, 2*time.Minute); err != nil {
		c.Stop()
		return nil, fmt.Errorf("%s: %w\n%s", c.Name, err, c.Logs())
	}
	return c, nil
}

func (c *component) start(bin, configPath string) error {
	log, err := os.Create(filepath.Join(c.Dir, "log"))
	if err != nil {
		return err
	}
	c.log = log
	c.cmd = exec.Command(bin, "--config", configPath)
	c.cmd.Stdout, c.cmd.Stderr = log, log
	// Its own process group, so that a signal to it reaches nothing else.
	c.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := c.cmd.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", c.Name, err)
	}
	go func() {
		err := c.cmd.Wait()
		c.mu.Lock()
		c.err = err
		c.mu.Unlock()
		close(c.done)
	}()
	return nil
}

// waitReady polls /readyz until it answers 200, the process exits or the
// timeout passes.
func (c *component) waitReady(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	client := &http.Client{Timeout: 2 * time.Second}
	for {
		select {
		case <-c.done:
			return fmt.Errorf("exited before it was ready: %v", c.exitErr())
		case <-ctx.Done():
			return fmt.Errorf("not ready within %s", timeout)
		case <-time.After(200 * time.Millisecond):
		}
		resp, err := client.Get("http://" + c.HealthAddr + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
	}
}

// Running reports whether the process has not exited.
func (c *component) Running() bool {
	select {
	case <-c.done:
		return false
	default:
		return true
	}
}

func (c *component) exitErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Kill ends the process at once (SIGKILL): no lease release, no flush.
func (c *component) Kill() {
	if c.Running() {
		_ = c.cmd.Process.Kill()
	}
	<-c.done
}

// Stop asks the process to shut down (SIGTERM) and kills it after 15s.
func (c *component) Stop() {
	if c == nil || c.cmd == nil || c.cmd.Process == nil {
		return
	}
	if c.Running() {
		_ = c.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-c.done:
		case <-time.After(15 * time.Second):
			_ = c.cmd.Process.Kill()
			<-c.done
		}
	}
	if c.log != nil {
		_ = c.log.Close()
	}
}

// Logs returns the process's output so far.
func (c *component) Logs() string {
	data, err := os.ReadFile(filepath.Join(c.Dir, "log"))
	if err != nil {
		return err.Error()
	}
	if len(data) > 20000 {
		data = append([]byte("...\n"), data[len(data)-20000:]...)
	}
	return string(data)
}

// LogContains reports whether the process's output, outside its quiet
// ranges, contains s.
func (c *component) LogContains(s string) bool {
	data, err := os.ReadFile(filepath.Join(c.Dir, "log"))
	if err != nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range c.quiet {
		for i := r[0]; i < r[1] && i < int64(len(data)); i++ {
			data[i] = '\n'
		}
	}
	return strings.Contains(string(data), s)
}

// LogSize returns how many bytes the process has written so far.
func (c *component) LogSize() int64 {
	fi, err := os.Stat(filepath.Join(c.Dir, "log"))
	if err != nil {
		return 0
	}
	return fi.Size()
}

// Quiet makes LogContains skip what the process wrote from offset on, up to now.
func (c *component) Quiet(from int64) {
	to := c.LogSize()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.quiet = append(c.quiet, [2]int64{from, to})
}

func ensureNamespace(ctx context.Context, kube kubernetes.Interface, name string) error {
	_, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
