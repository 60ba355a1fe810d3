package component

import (
	"fmt"
	"net/http"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	componentbaseconfigv1alpha1 "k8s.io/component-base/config/v1alpha1"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	versioned "github.com/graft-dev/client-go/clientset/versioned"
	"github.com/graft-dev/graft/pkg/component/leadership"
)

// RESTConfig returns the REST config that clientConnection describes.
func RESTConfig(cc componentbaseconfigv1alpha1.ClientConnectionConfiguration) (*rest.Config, error) {
	// An empty kubeconfig path makes clientcmd fall back to the in-cluster config.
	cfg, err := clientcmd.BuildConfigFromFlags("", cc.Kubeconfig)
	if err != nil {
		if cc.Kubeconfig == "" {
			return nil, fmt.Errorf("no kubeconfig configured and not running in a cluster: %w", err)
		}
		return nil, fmt.Errorf("loading kubeconfig %s: %w", cc.Kubeconfig, err)
	}
	return ApplyClientConnection(cfg, cc), nil
}

// ApplyClientConnection returns a copy of cfg carrying clientConnection's QPS, burst and content
// types, for callers (such as tests) that already hold a REST config. The
// content types are those of the Kubernetes clients: NewClients makes the
// graft client speak JSON whatever they say.
func ApplyClientConnection(cfg *rest.Config, cc componentbaseconfigv1alpha1.ClientConnectionConfiguration) *rest.Config {
	out := rest.CopyConfig(cfg)
	out.QPS = cc.QPS
	out.Burst = int(cc.Burst)
	if cc.ContentType != "" {
		out.ContentType = cc.ContentType
	}
	if cc.AcceptContentTypes != "" {
		out.AcceptContentTypes = cc.AcceptContentTypes
	}
	return out
}

// Clients are the clients every graft daemon uses. Every mutating request
// of Graft and Kubernetes (bindings, evictions, status, taints, Events) goes
// through Fence, which refuses it while a leader-elected replica cannot be
// sure it still leads; only Lease writes the lease, unfenced.
type Clients struct {
	// Graft is the typed client for core.graft.dev.
	Graft versioned.Interface
	// Kubernetes is the client for built-in kinds: Events, ConfigMaps.
	Kubernetes kubernetes.Interface
	// CustomResources is the configuration of clients of the groups graft
	// has no typed client for (Gardener's core.gardener.cloud, which
	// garden.Open reaches with it): JSON, fenced like Graft, with a rate
	// limiter of its own.
	CustomResources *rest.Config
	// Lease is the client that holds the lease; it is not fenced, since the
	// renewals are what open the fence.
	Lease kubernetes.Interface
	// Fence guards the writes of Graft and Kubernetes; it stays open until
	// leader election arms it (see Runner).
	Fence *leadership.Fence
}

// NewClients builds the clients from one REST config. userAgent is the whole
// user agent, so that API server logs and managedFields name the component.
// cfg's content type applies to the Kubernetes and Lease clients; the graft
// client speaks JSON, all custom resources are served in. Each client has a
// rate limiter of its own whose waits are counted and logged.
func NewClients(cfg *rest.Config, userAgent string) (Clients, error) {
	m, err := clientMetricsFor(nil)
	if err != nil {
		return Clients{}, fmt.Errorf("registering the clients' metrics: %w", err)
	}
	return newClients(cfg, userAgent, newThrottleReporter(userAgent, m, clock.RealClock{}, klog.Background()))
}

func newClients(cfg *rest.Config, userAgent string, throttle *throttleReporter) (Clients, error) {
	base := rest.CopyConfig(cfg)
	base.UserAgent = userAgent
	meta, err := metadata.NewForConfig(throttle.limit(base, "metadata"))
	if err != nil {
		return Clients{}, fmt.Errorf("building the metadata client: %w", err)
	}
	f := leadership.NewFence(userAgent, meta)
	fenced := rest.CopyConfig(base)
	fenced.Wrap(func(rt http.RoundTripper) http.RoundTripper { return f.Wrap(rt) })

	graft, err := versioned.NewForConfig(throttle.limit(jsonOnly(fenced), "graft"))
	if err != nil {
		return Clients{}, fmt.Errorf("building the graft client: %w", err)
	}
	kube, err := kubernetes.NewForConfig(throttle.limit(builtIn(fenced), "kubernetes"))
	if err != nil {
		return Clients{}, fmt.Errorf("building the Kubernetes client: %w", err)
	}
	lease, err := kubernetes.NewForConfig(throttle.limit(builtIn(base), "lease"))
	if err != nil {
		return Clients{}, fmt.Errorf("building the Lease client: %w", err)
	}
	return Clients{Graft: graft, Kubernetes: kube, CustomResources: throttle.limit(jsonOnly(fenced), "dynamic"), Lease: lease, Fence: f}, nil
}

// Content types of API requests.
const (
	contentTypeJSON     = "application/json"
	contentTypeProtobuf = "application/vnd.kubernetes.protobuf"
)

// builtIn returns a copy of cfg for the clients of built-in kinds: its
// content type, or protobuf (which they support and which is cheaper for the
// API server) when it names none; a protobuf client accepts JSON too.
func builtIn(cfg *rest.Config) *rest.Config {
	out := rest.CopyConfig(cfg)
	if out.ContentType == "" {
		out.ContentType = contentTypeProtobuf
	}
	if out.ContentType == contentTypeProtobuf && out.AcceptContentTypes == "" {
		out.AcceptContentTypes = contentTypeProtobuf + "," + contentTypeJSON
	}
	return out
}

// jsonOnly returns a copy of cfg speaking and accepting JSON only, for the
// custom resources of core.graft.dev.
func jsonOnly(cfg *rest.Config) *rest.Config {
	out := rest.CopyConfig(cfg)
	out.ContentType = contentTypeJSON
	out.AcceptContentTypes = contentTypeJSON
	return out
}
