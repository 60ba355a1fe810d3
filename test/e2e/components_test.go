//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
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

	proc *controlplane.Process
	mu   sync.Mutex
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
	c := &component{Name: fmt.Sprintf("%s-%d", chart, instance), Chart: chart}
	dir, err := os.MkdirTemp("", "graft-e2e-"+c.Name+"-")
	if err != nil {
		return nil, err
	}
	c.Dir = dir
	release := opts.Release
	if release == "" {
		release = chart
	}
	d, err := charts.PrepareDaemon(ctx, env.Config(), dir, chart, charts.TemplateOptions{Release: release, Namespace: componentNamespace, Set: opts.Set, SetJSON: opts.SetJSON})
	if err != nil {
		return nil, err
	}
	c.HealthAddr, c.MetricsAddr = d.HealthAddr, d.MetricsAddr
	if c.proc, err = controlplane.StartProcess(dir, "component", bins.path(chart), "--config", d.Config); err != nil {
		return nil, err
	}
	if err := c.proc.WaitHTTP(ctx, "http://"+c.HealthAddr+"/readyz", 2*time.Minute); err != nil {
		c.Stop()
		return nil, fmt.Errorf("%s: %w\n%s", c.Name, err, c.Logs())
	}
	return c, nil
}

// Running reports whether the process has not exited.
func (c *component) Running() bool { return c.proc.Running() }

func (c *component) exitErr() error { return c.proc.Exited() }

// Kill ends the process at once (SIGKILL): no lease release, no flush.
func (c *component) Kill() {
	_ = c.proc.Signal(syscall.SIGKILL)
	c.proc.Wait()
}

// Stop asks the process to shut down (SIGTERM) and kills it after 15s.
func (c *component) Stop() {
	if c != nil && c.proc != nil {
		_ = c.proc.Stop()
	}
}

// Logs returns the process's output so far.
func (c *component) Logs() string {
	data, err := os.ReadFile(c.proc.Log())
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
	data, err := os.ReadFile(c.proc.Log())
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
	fi, err := os.Stat(c.proc.Log())
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
