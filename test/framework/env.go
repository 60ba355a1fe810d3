package framework

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/graft-dev/graft/pkg/controlplane"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	graftclient "github.com/graft-dev/client-go/clientset/versioned"
)

// Env is a garden API server for tests: a local control plane this package
// started, or an existing cluster named by a kubeconfig.
type Env struct {
	// RESTConfig is an admin configuration.
	RESTConfig *rest.Config
	// Kubeconfig is the path of an admin kubeconfig.
	Kubeconfig string
	// ControlPlane is the local control plane, nil for an existing cluster.
	ControlPlane *controlplane.ControlPlane
	// Gardener is the gardener-apiserver registered with the local control
	// plane when Options.Gardener asked for it, nil otherwise.
	Gardener *controlplane.Gardener
}

// Options tune Start.
type Options struct {
	// UseKubeconfig makes Start use the cluster named by $KUBECONFIG when that is
	// set (end-to-end tests), instead of starting a local control plane.
	UseKubeconfig bool
	// Gardener also runs Gardener's API server (gardener-apiserver), registered
	// with the local control plane's aggregation layer, so that
	// core.gardener.cloud is served beside graft's own API. An existing cluster
	// (UseKubeconfig) is expected to serve it already.
	Gardener bool
}

// Start brings up a garden with graft's CRDs installed: a local control plane,
// or with opts.UseKubeconfig and $KUBECONFIG set, that cluster.
func Start(ctx context.Context, opts Options) (*Env, error) {
	if path := os.Getenv("KUBECONFIG"); opts.UseKubeconfig && path != "" {
		cfg, err := clientcmd.BuildConfigFromFlags("", path)
		if err != nil {
			return nil, fmt.Errorf("loading KUBECONFIG %s: %w", path, err)
		}
		if err := controlplane.InstallCRDs(ctx, cfg); err != nil {
			return nil, err
		}
		return &Env{RESTConfig: cfg, Kubeconfig: path}, nil
	}
	var logw *os.File
	if testing.Verbose() {
		logw = os.Stderr
	}
	cpOpts := controlplane.ControlPlaneOptions{}
	if logw != nil {
		cpOpts.Log = logw
	}
	var gardener *controlplane.Gardener
	if opts.Gardener {
		// Before the control plane: a missing binary fails fast, and
		// kube-apiserver needs the aggregation layer's certificates.
		g, err := controlplane.PrepareGardener(controlplane.GardenerOptions{Log: cpOpts.Log})
		if err != nil {
			return nil, err
		}
		gardener = g
		cpOpts.ExtraAPIServerArgs = append(cpOpts.ExtraAPIServerArgs, g.APIServerArgs()...)
	}
	cp, err := controlplane.StartControlPlane(ctx, cpOpts)
	if err != nil {
		_ = gardener.Stop()
		return nil, err
	}
	env := &Env{RESTConfig: cp.RESTConfig, Kubeconfig: cp.Kubeconfig, ControlPlane: cp, Gardener: gardener}
	if gardener != nil {
		if err := gardener.Start(ctx, cp); err != nil {
			_ = env.Stop()
			return nil, err
		}
	}
	if err := controlplane.InstallCRDs(ctx, cp.RESTConfig); err != nil {
		_ = env.Stop()
		return nil, err
	}
	return env, nil
}

// Stop stops a local control plane, gardener-apiserver first; an existing
// cluster is left alone.
func (e *Env) Stop() error {
	if e == nil {
		return nil
	}
	return errors.Join(e.Gardener.Stop(), e.ControlPlane.Stop())
}

// Config returns a copy of the admin configuration, safe to modify.
func (e *Env) Config() *rest.Config {
	return rest.CopyConfig(e.RESTConfig)
}

// GraftClient returns a clientset for graft's API.
func (e *Env) GraftClient() graftclient.Interface {
	return graftclient.NewForConfigOrDie(e.Config())
}

// KubeClient returns a clientset for Kubernetes' own API.
func (e *Env) KubeClient() kubernetes.Interface {
	return kubernetes.NewForConfigOrDie(e.Config())
}

var shared *Env

// Main runs a test binary's tests against one shared garden, started before
// and stopped after them. Call it from TestMain:
//
//	func TestMain(m *testing.M) { framework.Main(m) }
func Main(m *testing.M) {
	os.Exit(run(m, Options{}))
}

// MainWithOptions is Main with options, for example UseKubeconfig for e2e suites.
func MainWithOptions(m *testing.M, opts Options) {
	os.Exit(run(m, opts))
}

func run(m *testing.M, opts Options) int {
	// testing.Verbose needs parsed flags.
	if !flag.Parsed() {
		flag.Parse()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	env, err := Start(ctx, opts)
	cancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "starting the test garden: %v\n", err)
		return 1
	}
	shared = env
	code := m.Run()
	if err := env.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "stopping the test garden: %v\n", err)
	}
	return code
}

// Shared returns the garden started by Main. It fails the test when Main did
// not start one.
func Shared(t testing.TB) *Env {
	t.Helper()
	if shared == nil {
		t.Fatal("no test garden: call framework.Main(m) from TestMain")
	}
	return shared
}
