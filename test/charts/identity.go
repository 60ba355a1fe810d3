package charts

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/graft-dev/graft/pkg/controlplane"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
)

// identityKinds are the objects of a component chart that a test applies for
// real: the identity and its permissions. The Deployment is not applied;
// tests run the binary themselves.
var identityKinds = map[string]bool{"ServiceAccount": true, "ClusterRole": true, "ClusterRoleBinding": true, "Role": true, "RoleBinding": true}

// RunAsChart renders a component chart, applies its ServiceAccount and RBAC
// with admin, writes a kubeconfig for that ServiceAccount to kubeconfig and
// returns the rendered config.yaml. A process started with both runs with
// exactly the identity, permissions and configuration the chart gives it.
func RunAsChart(ctx context.Context, admin *rest.Config, chart string, opts TemplateOptions, kubeconfig string) (config string, err error) {
	objs, err := Template(ctx, chart, opts)
	if err != nil {
		return "", err
	}
	var rbac []*unstructured.Unstructured
	var serviceAccount string
	for _, o := range objs {
		switch {
		case identityKinds[o.GetKind()]:
			rbac = append(rbac, o)
			if o.GetKind() == "ServiceAccount" {
				serviceAccount = o.GetName()
			}
		case o.GetKind() == "ConfigMap":
			config, _, _ = unstructured.NestedString(o.Object, "data", "config.yaml")
		}
	}
	if serviceAccount == "" || config == "" {
		return "", fmt.Errorf("chart %s rendered no ServiceAccount or no config", chart)
	}
	applier, err := NewApplier(admin)
	if err != nil {
		return "", err
	}
	if err := applier.Apply(ctx, rbac, false); err != nil {
		return "", err
	}
	if err := controlplane.WriteServiceAccountKubeconfig(ctx, admin, opts.Namespace, serviceAccount, kubeconfig); err != nil {
		return "", err
	}
	return config, nil
}

// Daemon is a component prepared by PrepareDaemon to run as its chart.
type Daemon struct {
	// Config is the rendered config.yaml and Kubeconfig the ServiceAccount's
	// kubeconfig, both in the daemon's directory.
	Config, Kubeconfig string
	// HealthAddr and MetricsAddr are the free loopback addresses it serves
	// /healthz, /readyz and /metrics on.
	HealthAddr, MetricsAddr string
}

// PrepareDaemon does what RunAsChart does for a daemon that runs in dir: it
// points the configuration at the kubeconfig it writes there and at free
// loopback ports, before opts.Set, and writes the configuration to
// dir/config.yaml.
func PrepareDaemon(ctx context.Context, admin *rest.Config, dir, chart string, opts TemplateOptions) (Daemon, error) {
	ports, err := controlplane.FreePorts("127.0.0.1", 2)
	if err != nil {
		return Daemon{}, err
	}
	d := Daemon{Config: filepath.Join(dir, "config.yaml"), Kubeconfig: filepath.Join(dir, "kubeconfig"),
		HealthAddr: fmt.Sprintf("127.0.0.1:%d", ports[0]), MetricsAddr: fmt.Sprintf("127.0.0.1:%d", ports[1])}
	opts.Set = append([]string{
		"config.clientConnection.kubeconfig=" + d.Kubeconfig,
		"config.server.healthProbeBindAddress=" + d.HealthAddr,
		"config.server.metricsBindAddress=" + d.MetricsAddr,
	}, opts.Set...)
	config, err := RunAsChart(ctx, admin, chart, opts, d.Kubeconfig)
	if err != nil {
		return Daemon{}, err
	}
	return d, os.WriteFile(d.Config, []byte(config), 0o600)
}
