package factory

import (
	"fmt"
	"sync"

	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes"

	"github.com/graft-dev/client-go/clientset/versioned"
)

// Factory hands graftctl commands the clients they need. Commands call it in
// Complete, never at construction time, so that --help and completion of flags
// work without a reachable cluster.
type Factory interface {
	// GraftClient returns a client for core.graft.dev objects.
	GraftClient() (versioned.Interface, error)
	// KubeClient returns a client for Kubernetes' own objects (events, leases).
	KubeClient() (kubernetes.Interface, error)
	// Namespace returns the namespace from --namespace or the kubeconfig context,
	// and whether the user named it explicitly.
	Namespace() (string, bool, error)
}

// New returns a Factory that builds clients from the given kubeconfig flags.
// The clients are built once and shared by every caller.
func New(getter genericclioptions.RESTClientGetter) Factory {
	return &fromFlags{getter: getter}
}

type fromFlags struct {
	getter genericclioptions.RESTClientGetter

	once  sync.Once
	graft versioned.Interface
	kube  kubernetes.Interface
	err   error
}

func (f *fromFlags) build() {
	f.once.Do(func() {
		cfg, err := f.getter.ToRESTConfig()
		if err != nil {
			f.err = err
			return
		}
		if f.graft, err = versioned.NewForConfig(cfg); err != nil {
			f.err = fmt.Errorf("building the graft client: %w", err)
			return
		}
		if f.kube, err = kubernetes.NewForConfig(cfg); err != nil {
			f.err = fmt.Errorf("building the kubernetes client: %w", err)
		}
	})
}

func (f *fromFlags) GraftClient() (versioned.Interface, error) {
	f.build()
	return f.graft, f.err
}

func (f *fromFlags) KubeClient() (kubernetes.Interface, error) {
	f.build()
	return f.kube, f.err
}

func (f *fromFlags) Namespace() (string, bool, error) {
	return f.getter.ToRawKubeConfigLoader().Namespace()
}

// Static is a Factory over fixed clients, for tests and for programs that
// already hold their clientsets.
type Static struct {
	Graft versioned.Interface
	Kube  kubernetes.Interface
	// DefaultNamespace is returned by Namespace; empty means "default".
	DefaultNamespace string
	// ExplicitNamespace reports the namespace as given by the user.
	ExplicitNamespace bool
}

// GraftClient returns s.Graft.
func (s *Static) GraftClient() (versioned.Interface, error) {
	if s.Graft == nil {
		return nil, fmt.Errorf("no graft client configured")
	}
	return s.Graft, nil
}

// KubeClient returns s.Kube.
func (s *Static) KubeClient() (kubernetes.Interface, error) {
	if s.Kube == nil {
		return nil, fmt.Errorf("no kubernetes client configured")
	}
	return s.Kube, nil
}

// Namespace returns s.DefaultNamespace, or "default" when it is empty.
func (s *Static) Namespace() (string, bool, error) {
	if s.DefaultNamespace == "" {
		return "default", s.ExplicitNamespace, nil
	}
	return s.DefaultNamespace, s.ExplicitNamespace, nil
}
