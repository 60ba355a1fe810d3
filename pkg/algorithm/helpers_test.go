package algorithm

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/coretest"
)

// seedOpt changes a test seed.
type seedOpt func(*v1alpha1.Seed)

// newSeed returns a usable aws seed in eu-west-1 with disjoint default
// networks and ready backup buckets.
func newSeed(name string, opts ...seedOpt) *v1alpha1.Seed {
	s := coretest.MakeSeed(name).Condition(v1alpha1.SeedBackupBucketsReady, v1alpha1.ConditionTrue).Obj()
	for _, o := range opts {
		o(s)
	}
	return s
}

func region(provider, region string) seedOpt {
	return func(s *v1alpha1.Seed) { coretest.WrapSeed(s).Provider(provider, region) }
}
func allocatable(n int64) seedOpt {
	return func(s *v1alpha1.Seed) { coretest.WrapSeed(s).Allocatable(n) }
}
func taint(key string, value *string, effect v1alpha1.TaintEffect) seedOpt {
	return func(s *v1alpha1.Seed) { coretest.WrapSeed(s).Taint(key, value, effect) }
}
func label(k, v string) seedOpt { return func(s *v1alpha1.Seed) { coretest.WrapSeed(s).Label(k, v) } }
func zones(z ...string) seedOpt { return func(s *v1alpha1.Seed) { coretest.WrapSeed(s).Zones(z...) } }
func condition(t v1alpha1.ConditionType, st v1alpha1.ConditionStatus) seedOpt {
	return func(s *v1alpha1.Seed) { coretest.WrapSeed(s).Condition(t, st) }
}
func seedNets(nodes, pods, services string) seedOpt {
	return func(s *v1alpha1.Seed) { coretest.WrapSeed(s).Networks(nodes, pods, services) }
}
func shootDefaults(pods, services string) seedOpt {
	return func(s *v1alpha1.Seed) { coretest.WrapSeed(s).ShootDefaults(pods, services) }
}

type shootOpt func(*v1alpha1.Shoot)

// newShoot returns an aws shoot in eu-west-1 with networks disjoint from newSeed's.
func newShoot(name string, opts ...shootOpt) *v1alpha1.Shoot {
	s := coretest.MakeShoot("garden-dev", name).Obj()
	for _, o := range opts {
		o(s)
	}
	return s
}

func onSeed(spec, status string) shootOpt {
	return func(s *v1alpha1.Shoot) { coretest.WrapShoot(s).Seed(spec).StatusSeed(status) }
}
func tolerate(key string, value *string, effect v1alpha1.TaintEffect, seconds *int64) shootOpt {
	return func(s *v1alpha1.Shoot) { coretest.WrapShoot(s).Tolerate(key, value, effect, seconds) }
}
func shootRegion(provider, region string) shootOpt {
	return func(s *v1alpha1.Shoot) { coretest.WrapShoot(s).Provider(provider, region) }
}
func purpose(p v1alpha1.ShootPurpose) shootOpt {
	return func(s *v1alpha1.Shoot) { coretest.WrapShoot(s).Purpose(p) }
}
func shootNets(nodes, pods, services string, families ...v1alpha1.IPFamily) shootOpt {
	return func(s *v1alpha1.Shoot) { coretest.WrapShoot(s).Networks(nodes, pods, services, families...) }
}

func ptr[T any](v T) *T { return &v }

func cloudProfile(name string) *v1alpha1.CloudProfile {
	return &v1alpha1.CloudProfile{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: v1alpha1.CloudProfileSpec{Type: "aws"}}
}

func regionConfigMap(name string, profiles string, data map[string]string) *corev1.ConfigMap {
	return coretest.RegionConfigMap("garden", name, profiles, data)
}

func snapshotOf(seeds []*v1alpha1.Seed, shoots ...*v1alpha1.Shoot) *Snapshot {
	snap := NewSnapshot()
	for _, s := range seeds {
		snap.AddSeed(s)
	}
	for _, s := range shoots {
		snap.AddShoot(s)
	}
	return snap
}

// fill returns n shoots bound to the seed.
func fill(seed string, n int) []*v1alpha1.Shoot {
	out := make([]*v1alpha1.Shoot, n)
	for i := range out {
		out[i] = newShoot(seed+"-filler-"+strconv.Itoa(i), onSeed(seed, ""))
	}
	return out
}
