package graftctltest

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
)

// CloudProfileName is the cloud profile of the shoots Shoot builds.
const CloudProfileName = "aws"

// CloudProfile returns the aws cloud profile with region eu-west-1.
func CloudProfile() *corev1alpha1.CloudProfile {
	return &corev1alpha1.CloudProfile{
		ObjectMeta: metav1.ObjectMeta{Name: CloudProfileName},
		Spec: corev1alpha1.CloudProfileSpec{
			Type:    "aws",
			Regions: []corev1alpha1.Region{{Name: "eu-west-1"}},
		},
	}
}

// SeedOption changes a seed built by Seed.
type SeedOption func(*corev1alpha1.Seed)

// Seed returns a ready, visible aws seed in eu-west-1 whose networks do not
// overlap the shoots' networks.
func Seed(name string, opts ...SeedOption) *corev1alpha1.Seed {
	nodes := "10.250.0.0/16"
	s := &corev1alpha1.Seed{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{}},
		Spec: corev1alpha1.SeedSpec{
			Provider: corev1alpha1.SeedProvider{Type: "aws", Region: "eu-west-1", Zones: []string{"a", "b", "c"}},
			Networks: corev1alpha1.SeedNetworks{Nodes: &nodes, Pods: "10.96.0.0/11", Services: "10.64.0.0/13"},
		},
	}
	ReadyStatus(&s.Status)
	for _, o := range opts {
		o(s)
	}
	return s
}

// ReadyStatus fills a seed status the algorithm accepts.
func ReadyStatus(status *corev1alpha1.SeedStatus) {
	status.LastOperation = &corev1alpha1.LastOperation{
		Type: corev1alpha1.LastOperationTypeReconcile, State: corev1alpha1.LastOperationStateSucceeded,
		Description: "seed is ready", Progress: 100, LastUpdateTime: metav1.Now(),
	}
	status.Conditions = []corev1alpha1.Condition{{
		Type: corev1alpha1.SeedGardenletReady, Status: corev1alpha1.ConditionTrue,
		LastTransitionTime: metav1.Now(), LastUpdateTime: metav1.Now(), Reason: "Ready", Message: "ready",
	}}
}

// WithTaints adds taints.
func WithTaints(taints ...corev1alpha1.SeedTaint) SeedOption {
	return func(s *corev1alpha1.Seed) { s.Spec.Taints = append(s.Spec.Taints, taints...) }
}

// WithLabels adds labels.
func WithLabels(labels map[string]string) SeedOption {
	return func(s *corev1alpha1.Seed) {
		for k, v := range labels {
			s.Labels[k] = v
		}
	}
}

// WithAllocatable sets status.allocatable.shoots.
func WithAllocatable(n int64) SeedOption {
	return func(s *corev1alpha1.Seed) {
		s.Status.Allocatable = corev1.ResourceList{corev1alpha1.ResourceShoots: *resource.NewQuantity(n, resource.DecimalSI)}
	}
}

// WithRegion sets the provider region.
func WithRegion(region string) SeedOption {
	return func(s *corev1alpha1.Seed) { s.Spec.Provider.Region = region }
}

// ShootOption changes a shoot built by Shoot.
type ShootOption func(*corev1alpha1.Shoot)

// Shoot returns an aws shoot in eu-west-1 on seedName ("" for none), with
// networks disjoint from Seed's.
func Shoot(namespace, name, seedName string, opts ...ShootOption) *corev1alpha1.Shoot {
	nodes, pods, services := "10.180.0.0/16", "100.96.0.0/11", "100.64.0.0/13"
	profile := CloudProfileName
	s := &corev1alpha1.Shoot{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: corev1alpha1.ShootSpec{
			CloudProfileName: &profile,
			Provider:         corev1alpha1.Provider{Type: "aws"},
			Region:           "eu-west-1",
			Networking:       &corev1alpha1.Networking{Nodes: &nodes, Pods: &pods, Services: &services},
		},
	}
	if seedName != "" {
		seed := seedName
		s.Spec.SeedName = &seed
	}
	for _, o := range opts {
		o(s)
	}
	return s
}

// WithTolerations adds tolerations.
func WithTolerations(tolerations ...corev1alpha1.Toleration) ShootOption {
	return func(s *corev1alpha1.Shoot) { s.Spec.Tolerations = append(s.Spec.Tolerations, tolerations...) }
}

// WithPurpose sets the purpose.
func WithPurpose(p corev1alpha1.ShootPurpose) ShootOption {
	return func(s *corev1alpha1.Shoot) { s.Spec.Purpose = &p }
}
