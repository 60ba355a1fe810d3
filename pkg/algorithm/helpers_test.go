package algorithm

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

// seedOpt changes a test seed.
type seedOpt func(*v1alpha1.Seed)

// newSeed returns a usable aws seed in eu-west-1 with disjoint default networks.
func newSeed(name string, opts ...seedOpt) *v1alpha1.Seed {
	s := &v1alpha1.Seed{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{}},
		Spec: v1alpha1.SeedSpec{
			Provider: v1alpha1.SeedProvider{Type: "aws", Region: "eu-west-1", Zones: []string{"a", "b", "c"}},
			Networks: v1alpha1.SeedNetworks{Nodes: ptr("10.250.0.0/16"), Pods: "10.96.0.0/11", Services: "10.64.0.0/13"},
		},
		Status: v1alpha1.SeedStatus{
			LastOperation: &v1alpha1.LastOperation{Type: v1alpha1.LastOperationTypeReconcile, State: v1alpha1.LastOperationStateSucceeded},
			Conditions: []v1alpha1.Condition{
				{Type: v1alpha1.SeedGardenletReady, Status: v1alpha1.ConditionTrue},
				{Type: v1alpha1.SeedBackupBucketsReady, Status: v1alpha1.ConditionTrue},
			},
		},
	}
	for _, o := range opts {
		o(s)
	}
	return s
}

func region(provider, region string) seedOpt {
	return func(s *v1alpha1.Seed) { s.Spec.Provider.Type, s.Spec.Provider.Region = provider, region }
}

func allocatable(n int64) seedOpt {
	return func(s *v1alpha1.Seed) {
		s.Status.Allocatable = corev1.ResourceList{v1alpha1.ResourceShoots: *resource.NewQuantity(n, resource.DecimalSI)}
	}
}

func taint(key string, value *string, effect v1alpha1.TaintEffect) seedOpt {
	return func(s *v1alpha1.Seed) {
		s.Spec.Taints = append(s.Spec.Taints, v1alpha1.SeedTaint{Key: key, Value: value, Effect: effect})
	}
}

func label(k, v string) seedOpt { return func(s *v1alpha1.Seed) { s.Labels[k] = v } }

func zones(z ...string) seedOpt { return func(s *v1alpha1.Seed) { s.Spec.Provider.Zones = z } }

func condition(t v1alpha1.ConditionType, st v1alpha1.ConditionStatus) seedOpt {
	return func(s *v1alpha1.Seed) {
		for i := range s.Status.Conditions {
			if s.Status.Conditions[i].Type == t {
				s.Status.Conditions[i].Status = st
				return
			}
		}
		s.Status.Conditions = append(s.Status.Conditions, v1alpha1.Condition{Type: t, Status: st})
	}
}

func seedNets(nodes, pods, services string) seedOpt {
	return func(s *v1alpha1.Seed) {
		s.Spec.Networks.Nodes = nil
		if nodes != "" {
			s.Spec.Networks.Nodes = ptr(nodes)
		}
		s.Spec.Networks.Pods, s.Spec.Networks.Services = pods, services
	}
}

func shootDefaults(pods, services string) seedOpt {
	return func(s *v1alpha1.Seed) {
		d := &v1alpha1.ShootNetworks{}
		if pods != "" {
			d.Pods = ptr(pods)
		}
		if services != "" {
			d.Services = ptr(services)
		}
		s.Spec.Networks.ShootDefaults = d
	}
}

type shootOpt func(*v1alpha1.Shoot)

// newShoot returns an aws shoot in eu-west-1 with networks disjoint from newSeed's.
func newShoot(name string, opts ...shootOpt) *v1alpha1.Shoot {
	s := &v1alpha1.Shoot{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "garden-dev"},
		Spec: v1alpha1.ShootSpec{
			CloudProfile: &v1alpha1.CloudProfileReference{Kind: "CloudProfile", Name: "aws"},
			Provider:     v1alpha1.Provider{Type: "aws"},
			Region:       "eu-west-1",
			Networking:   &v1alpha1.Networking{Nodes: ptr("10.180.0.0/16"), Pods: ptr("100.96.0.0/11"), Services: ptr("100.64.0.0/13")},
		},
	}
	for _, o := range opts {
		o(s)
	}
	return s
}

func onSeed(spec, status string) shootOpt {
	return func(s *v1alpha1.Shoot) {
		s.Spec.SeedName, s.Status.SeedName = nil, nil
		if spec != "" {
			s.Spec.SeedName = ptr(spec)
		}
		if status != "" {
			s.Status.SeedName = ptr(status)
		}
	}
}

func tolerate(key string, value *string, effect v1alpha1.TaintEffect, seconds *int64) shootOpt {
	return func(s *v1alpha1.Shoot) {
		s.Spec.Tolerations = append(s.Spec.Tolerations, v1alpha1.Toleration{Key: key, Value: value, Effect: effect, TolerationSeconds: seconds})
	}
}

func shootRegion(provider, region string) shootOpt {
	return func(s *v1alpha1.Shoot) { s.Spec.Provider.Type, s.Spec.Region = provider, region }
}

func purpose(p v1alpha1.ShootPurpose) shootOpt {
	return func(s *v1alpha1.Shoot) { s.Spec.Purpose = &p }
}

func shootNets(nodes, pods, services string, families ...v1alpha1.IPFamily) shootOpt {
	return func(s *v1alpha1.Shoot) {
		n := &v1alpha1.Networking{IPFamilies: families}
		if nodes != "" {
			n.Nodes = ptr(nodes)
		}
		if pods != "" {
			n.Pods = ptr(pods)
		}
		if services != "" {
			n.Services = ptr(services)
		}
		s.Spec.Networking = n
	}
}

func ptr[T any](v T) *T { return &v }

func cloudProfile(name string) *v1alpha1.CloudProfile {
	return &v1alpha1.CloudProfile{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: v1alpha1.CloudProfileSpec{Type: "aws"}}
}

func regionConfigMap(name string, profiles string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: "garden",
			Labels:      map[string]string{v1alpha1.LabelSchedulingPurpose: v1alpha1.LabelSchedulingPurposeRegionConfig},
			Annotations: map[string]string{v1alpha1.AnnotationSchedulingCloudProfiles: profiles},
		},
		Data: data,
	}
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
