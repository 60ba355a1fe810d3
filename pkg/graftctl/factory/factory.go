package factory

import (
	"fmt"
	"sync"

	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/kubernetes"

	"github.com/graft-dev/client-go/clientset/versioned"

	"github.com/graft-dev/graft/pkg/garden"
)

// Factory hands graftctl commands the clients they need. Commands call it in
// Complete, never at construction time, so that --help and completion of flags
// work without a reachable cluster.
type Factory interface {
	// GraftClient returns a client for core.graft.dev objects.
	GraftClient() (versioned.Interface, error)
	// Garden returns the client for seeds, shoots and cloud profiles of the
	// API the cluster serves (--api, or discovery): graft's or Gardener's.
	Garden() (garden.Client, error)
	// KubeClient returns a client for Kubernetes' own objects (events, leases).
	KubeClient() (kubernetes.Interface, error)
	// Namespace returns the namespace from --namespace or the kubeconfig context,
	// and whether the user named it explicitly.
	Namespace() (string, bool, error)
}

// New returns a Factory that builds clients from the given kubeconfig flags.
// api points at the value of the global --api flag; empty asks discovery. The
// clients are built once and shared by every caller.
func New(getter genericclioptions.RESTClientGetter, api *string) Factory {
	return &fromFlags{getter: getter, apiFlag: api}
}

type fromFlags struct {
	getter  genericclioptions.RESTClientGetter
	apiFlag *string

	once  sync.Once
	graft versioned.Interface
	kube  kubernetes.Interface
	err   error

	gardenOnce sync.Once
	garden     garden.Client
	gardenErr  error
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

func (f *fromFlags) Garden() (garden.Client, error) {
	f.gardenOnce.Do(func() { f.garden, f.gardenErr = f.buildGarden() })
	return f.garden, f.gardenErr
}

func (f *fromFlags) buildGarden() (garden.Client, error) {
	var flag string
	if f.apiFlag != nil {
		flag = *f.apiFlag
	}
	api, err := garden.ParseAPI(flag)
	if err != nil {
		return nil, err
	}
	if api == "" {
		cfg, err := f.getter.ToRESTConfig()
		if err != nil {
			return nil, err
		}
		// Uncached: a disk cache written before graft's CRDs or Gardener's
		// APIService were installed would give the wrong answer.
		disco, err := discovery.NewDiscoveryClientForConfig(cfg)
		if err != nil {
			return nil, fmt.Errorf("building the discovery client: %w", err)
		}
		if api, err = garden.Discover(disco); err != nil {
			return nil, err
		}
	}
	// Both clients are built without a request; garden.New takes the API's.
	graft, err := f.GraftClient()
	if err != nil {
		return nil, err
	}
	cfg, err := f.getter.ToRESTConfig()
	if err != nil {
		return nil, err
	}
	dyn, err := garden.NewDynamic(cfg)
	if err != nil {
		return nil, fmt.Errorf("building the dynamic client: %w", err)
	}
	return garden.New(api, graft, dyn)
}

func (f *fromFlags) Namespace() (string, bool, error) {
	return f.getter.ToRawKubeConfigLoader().Namespace()
}

// Static is a Factory over fixed clients, for tests and for programs that
// already hold their clientsets.
type Static struct {
	Graft versioned.Interface
	Kube  kubernetes.Interface
	// API is the API Garden talks to; empty means graft's, through Graft.
	API garden.API
	// Dynamic is the client Garden reads Gardener's objects with when API is
	// garden.Gardener.
	Dynamic garden.Dynamic
	// Discovery, when set and API is empty, decides the API as the binary
	// does.
	Discovery discovery.DiscoveryInterface
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

// Garden returns a client for s.API (by s.Discovery when empty and set,
// graft's otherwise): over s.Graft for graft's, over s.Dynamic for Gardener's.
func (s *Static) Garden() (garden.Client, error) {
	api := s.API
	if api == "" && s.Discovery != nil {
		var err error
		if api, err = garden.Discover(s.Discovery); err != nil {
			return nil, err
		}
	}
	if api == "" {
		api = garden.Graft
	}
	return garden.New(api, s.Graft, s.Dynamic)
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
