package graftctltest

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/coretest"
)

// CloudProfileName is the cloud profile of the shoots Shoot builds.
const CloudProfileName = "aws"

// CloudProfile returns the aws cloud profile with region eu-west-1.
func CloudProfile() *corev1alpha1.CloudProfile {
	return coretest.MakeCloudProfile(CloudProfileName).Regions("eu-west-1").Obj()
}

// SeedOption changes a seed built by Seed.
type SeedOption func(*corev1alpha1.Seed)

// Seed returns a ready, visible aws seed in eu-west-1 whose networks do not
// overlap the shoots' networks.
func Seed(name string, opts ...SeedOption) *corev1alpha1.Seed {
	s := coretest.MakeSeed(name).Obj()
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
	return func(s *corev1alpha1.Seed) { coretest.WrapSeed(s).Taints(taints...) }
}

// WithLabels adds labels.
func WithLabels(labels map[string]string) SeedOption {
	return func(s *corev1alpha1.Seed) { coretest.WrapSeed(s).Labels(labels) }
}

// WithAllocatable sets status.allocatable.shoots.
func WithAllocatable(n int64) SeedOption {
	return func(s *corev1alpha1.Seed) { coretest.WrapSeed(s).Allocatable(n) }
}

// WithRegion sets the provider region.
func WithRegion(region string) SeedOption {
	return func(s *corev1alpha1.Seed) { coretest.WrapSeed(s).Region(region) }
}

// ShootOption changes a shoot built by Shoot.
type ShootOption func(*corev1alpha1.Shoot)

// Shoot returns an aws shoot in eu-west-1 on seedName ("" for none), with
// networks disjoint from Seed's.
func Shoot(namespace, name, seedName string, opts ...ShootOption) *corev1alpha1.Shoot {
	s := coretest.MakeShoot(namespace, name).CloudProfileName(CloudProfileName).Seed(seedName).Obj()
	for _, o := range opts {
		o(s)
	}
	return s
}

// WithTolerations adds tolerations.
func WithTolerations(tolerations ...corev1alpha1.Toleration) ShootOption {
	return func(s *corev1alpha1.Shoot) { coretest.WrapShoot(s).Tolerations(tolerations...) }
}

// WithPurpose sets the purpose.
func WithPurpose(p corev1alpha1.ShootPurpose) ShootOption {
	return func(s *corev1alpha1.Shoot) { coretest.WrapShoot(s).Purpose(p) }
}
