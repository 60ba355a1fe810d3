package node

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// apiServerArgs are the garden kube-apiserver's flags that let pods reach it.
// The garden binds loopback and publishes no endpoints for the kubernetes
// Service (test/framework), because an endpoint may not be a loopback address.
// With a node, kube-apiserver listens on every address, so that pods reach it
// through the bridge at the node's address, and the kubernetes Service gets
// that address as its endpoint (publishAPIServer). The self-signed serving
// certificate kube-apiserver makes covers 127.0.0.1 (its advertised address)
// and the Service's cluster IP, which is the address in-cluster clients
// dial.
var apiServerArgs = []string{"--bind-address=0.0.0.0"}

// endpointSliceManager marks the kubernetes Service's EndpointSlice as this
// package's: kube-controller-manager's controllers leave slices alone that
// another manager owns, and the Service has no selector anyway.
const endpointSliceManager = "local-node.graft.dev"

// publishAPIServer makes the kubernetes Service in the default namespace
// point at kube-apiserver through the node's address, so that pods using the
// in-cluster configuration (KUBERNETES_SERVICE_HOST, the Service's cluster IP)
// reach it. host is the garden's URL, whose port kube-apiserver listens on.
func publishAPIServer(ctx context.Context, kube kubernetes.Interface, host string) error {
	u, err := url.Parse(host)
	if err != nil {
		return fmt.Errorf("the garden's address %q: %w", host, err)
	}
	_, portText, err := net.SplitHostPort(u.Host)
	if err != nil {
		return fmt.Errorf("the garden's address %q has no port: %w", host, err)
	}
	port, err := strconv.ParseInt(portText, 10, 32)
	if err != nil {
		return fmt.Errorf("the garden's port %q: %w", portText, err)
	}
	slice := apiServerSlice(int32(port))
	slices := kube.DiscoveryV1().EndpointSlices(metav1.NamespaceDefault)
	existing, err := slices.Get(ctx, slice.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		_, err = slices.Create(ctx, slice, metav1.CreateOptions{})
	case err == nil:
		slice.ResourceVersion = existing.ResourceVersion
		_, err = slices.Update(ctx, slice, metav1.UpdateOptions{})
	}
	if err != nil {
		return fmt.Errorf("publishing kube-apiserver at %s:%d as the kubernetes Service's endpoint: %w", nodeIP, port, err)
	}
	return nil
}

// apiServerSlice is the kubernetes Service's one endpoint: the node's address
// and kube-apiserver's port, under the port name the Service uses.
func apiServerSlice(port int32) *discoveryv1.EndpointSlice {
	return &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{
			Name:      "kubernetes",
			Namespace: metav1.NamespaceDefault,
			Labels: map[string]string{
				discoveryv1.LabelServiceName: "kubernetes",
				discoveryv1.LabelManagedBy:   endpointSliceManager,
			},
		},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints: []discoveryv1.Endpoint{{
			Addresses:  []string{nodeIP},
			Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)},
		}},
		Ports: []discoveryv1.EndpointPort{{
			Name:     ptr.To("https"),
			Port:     ptr.To(port),
			Protocol: ptr.To(corev1.ProtocolTCP),
		}},
	}
}
