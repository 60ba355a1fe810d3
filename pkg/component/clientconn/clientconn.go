package clientconn

import (
	"fmt"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	componentbaseconfigv1alpha1 "k8s.io/component-base/config/v1alpha1"

	versioned "github.com/graft-dev/client-go/clientset/versioned"
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
	return Apply(cfg, cc), nil
}

// Apply returns a copy of cfg carrying clientConnection's QPS, burst and content
// types, for callers (such as tests) that already hold a REST config.
func Apply(cfg *rest.Config, cc componentbaseconfigv1alpha1.ClientConnectionConfiguration) *rest.Config {
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

// Clients are the clients every graft daemon uses.
type Clients struct {
	// Graft is the typed client for core.graft.dev.
	Graft versioned.Interface
	// Kubernetes is the client for built-in kinds: Leases, Events, ConfigMaps.
	Kubernetes kubernetes.Interface
}

// NewClients builds both clients from one REST config. userAgent is the whole
// user agent, so that API server logs and the managedFields of every write name
// the component (also when it runs inside another binary, as in tests).
func NewClients(cfg *rest.Config, userAgent string) (Clients, error) {
	graftCfg := rest.CopyConfig(cfg)
	graftCfg.UserAgent = userAgent
	graft, err := versioned.NewForConfig(graftCfg)
	if err != nil {
		return Clients{}, fmt.Errorf("building the graft client: %w", err)
	}
	// Built-in kinds speak protobuf, which is cheaper for the API server.
	kubeCfg := rest.CopyConfig(cfg)
	kubeCfg.UserAgent = userAgent
	kubeCfg.ContentType = "application/vnd.kubernetes.protobuf"
	kubeCfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	kube, err := kubernetes.NewForConfig(kubeCfg)
	if err != nil {
		return Clients{}, fmt.Errorf("building the Kubernetes client: %w", err)
	}
	return Clients{Graft: graft, Kubernetes: kube}, nil
}
