package landscapegen

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
)

// ScenarioLabel marks every object of a landscape with its scenario name.
const ScenarioLabel = "e2e.graft.dev/scenario"

// Spec describes a landscape.
type Spec struct {
	// Scenario is a short DNS-label name; it prefixes every object's name and
	// names the shoots' namespace.
	Scenario string
	// Providers are provider types, one cloud profile each.
	Providers []string
	// RegionsPerProvider is how many regions each provider has seeds in.
	RegionsPerProvider int
	// SeedsPerRegion is how many seeds each of those regions has.
	SeedsPerRegion int
	// SeedCapacity is every seed's allocatable shoots (annotation and status).
	SeedCapacity int
	// Shoots is how many shoots to create, spread over providers, regions and purposes.
	Shoots int
	// SeedlessRegionShoots is how many extra shoots ask for a region of the
	// first provider that has no seed: they must stay pending.
	SeedlessRegionShoots int
}

// Landscape is a generated garden.
type Landscape struct {
	Spec          Spec
	Namespace     *corev1.Namespace
	CloudProfiles []*corev1alpha1.CloudProfile
	Seeds         []*corev1alpha1.Seed
	Shoots        []*corev1alpha1.Shoot
}

// SeedlessRegion is the region the SeedlessRegionShoots ask for.
const SeedlessRegion = "nowhere-1"

// purposes leaves out infrastructure: only shoots in namespace garden may
// have it (policy graft-shoot-tenancy), and a landscape has its own namespace.
var purposes = []corev1alpha1.ShootPurpose{
	corev1alpha1.ShootPurposeProduction, corev1alpha1.ShootPurposeDevelopment, corev1alpha1.ShootPurposeEvaluation,
	corev1alpha1.ShootPurposeTesting,
}

// Region returns the name of a provider's i-th region.
func Region(provider string, i int) string { return fmt.Sprintf("%s-region-%d", provider, i+1) }

// Selector returns the label selector matching the landscape's objects.
func (l *Landscape) Selector() string { return ScenarioLabel + "=" + l.Spec.Scenario }

// Generate builds a landscape; the same Spec always gives the same objects.
func Generate(spec Spec) *Landscape {
	labels := map[string]string{ScenarioLabel: spec.Scenario}
	l := &Landscape{
		Spec:      spec,
		Namespace: &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "garden-" + spec.Scenario, Labels: labels}},
	}
	seedIndex := 0
	for _, provider := range spec.Providers {
		cp := &corev1alpha1.CloudProfile{
			ObjectMeta: metav1.ObjectMeta{Name: spec.Scenario + "-" + provider, Labels: labels},
			Spec: corev1alpha1.CloudProfileSpec{
				Type:         provider,
				SeedSelector: &corev1alpha1.SeedSelector{LabelSelector: metav1.LabelSelector{MatchLabels: labels}},
			},
		}
		for r := 0; r < spec.RegionsPerProvider; r++ {
			region := Region(provider, r)
			cp.Spec.Regions = append(cp.Spec.Regions, corev1alpha1.Region{Name: region})
			for s := 0; s < spec.SeedsPerRegion; s++ {
				l.Seeds = append(l.Seeds, seed(spec, provider, region, s, seedIndex, labels))
				seedIndex++
			}
		}
		if provider == spec.Providers[0] && spec.SeedlessRegionShoots > 0 {
			cp.Spec.Regions = append(cp.Spec.Regions, corev1alpha1.Region{Name: SeedlessRegion})
		}
		l.CloudProfiles = append(l.CloudProfiles, cp)
	}
	for i := 0; i < spec.Shoots; i++ {
		provider := spec.Providers[i%len(spec.Providers)]
		region := Region(provider, (i/len(spec.Providers))%spec.RegionsPerProvider)
		l.Shoots = append(l.Shoots, Shoot(spec, fmt.Sprintf("%s-shoot-%04d", spec.Scenario, i), provider, region, purposes[i%len(purposes)], i%7 == 0))
	}
	for i := 0; i < spec.SeedlessRegionShoots; i++ {
		l.Shoots = append(l.Shoots, Shoot(spec, fmt.Sprintf("%s-lost-%04d", spec.Scenario, i), spec.Providers[0], SeedlessRegion, corev1alpha1.ShootPurposeProduction, false))
	}
	return l
}

func seed(spec Spec, provider, region string, s, index int, labels map[string]string) *corev1alpha1.Seed {
	now := metav1.NewTime(time.Now().Truncate(time.Second))
	alloc := resource.NewQuantity(int64(spec.SeedCapacity), resource.DecimalSI)
	// Every third seed has a single zone: zone-tolerant shoots cannot use it.
	zones := []string{region + "a", region + "b", region + "c"}
	if s%3 == 2 {
		zones = zones[:1]
	}
	return &corev1alpha1.Seed{
		ObjectMeta: metav1.ObjectMeta{
			Name:   fmt.Sprintf("%s-%s-%d", spec.Scenario, region, s),
			Labels: labels,
			Annotations: map[string]string{
				corev1alpha1.AnnotationCapacityShoots: alloc.String(),
			},
		},
		Spec: corev1alpha1.SeedSpec{
			Provider: corev1alpha1.SeedProvider{Type: provider, Region: region, Zones: zones},
			Networks: corev1alpha1.SeedNetworks{
				// Seed networks stay clear of the shoots' 10.250.0.0/16 and of
				// the shoot defaults below.
				Nodes:    ptr.To(fmt.Sprintf("10.%d.0.0/16", index%200)),
				Pods:     fmt.Sprintf("172.16.%d.0/24", index%250),
				Services: fmt.Sprintf("172.17.%d.0/24", index%250),
				ShootDefaults: &corev1alpha1.ShootNetworks{
					Pods:     ptr.To("100.96.0.0/11"),
					Services: ptr.To("100.64.0.0/13"),
				},
			},
			Settings: &corev1alpha1.SeedSettings{Scheduling: &corev1alpha1.SeedSettingScheduling{Visible: true}},
		},
		Status: corev1alpha1.SeedStatus{
			Conditions: []corev1alpha1.Condition{{
				Type: corev1alpha1.SeedGardenletReady, Status: corev1alpha1.ConditionTrue,
				Reason: "GardenletReady", Message: "the seed's agent is ready", LastTransitionTime: now, LastUpdateTime: now,
			}},
			LastOperation: &corev1alpha1.LastOperation{
				Type: corev1alpha1.LastOperationTypeReconcile, State: corev1alpha1.LastOperationStateSucceeded,
				Description: "seed reconciled", Progress: 100, LastUpdateTime: now,
			},
			Capacity:    corev1.ResourceList{corev1alpha1.ResourceShoots: *alloc},
			Allocatable: corev1.ResourceList{corev1alpha1.ResourceShoots: *alloc},
		},
	}
}

// Shoot returns a pending shoot of the landscape's namespace and cloud profile.
func Shoot(spec Spec, name, provider, region string, purpose corev1alpha1.ShootPurpose, zoneHA bool) *corev1alpha1.Shoot {
	shoot := &corev1alpha1.Shoot{
		ObjectMeta: metav1.ObjectMeta{Namespace: "garden-" + spec.Scenario, Name: name, Labels: map[string]string{ScenarioLabel: spec.Scenario}},
		Spec: corev1alpha1.ShootSpec{
			CloudProfile: &corev1alpha1.CloudProfileReference{Kind: "CloudProfile", Name: spec.Scenario + "-" + provider},
			Region:       region,
			Purpose:      ptr.To(purpose),
			Provider:     corev1alpha1.Provider{Type: provider, Workers: []corev1alpha1.Worker{{Name: "worker"}}},
			Networking:   &corev1alpha1.Networking{Type: ptr.To("calico"), Nodes: ptr.To("10.250.0.0/16")},
		},
	}
	if zoneHA {
		shoot.Spec.ControlPlane = &corev1alpha1.ControlPlane{HighAvailability: &corev1alpha1.HighAvailability{
			FailureTolerance: corev1alpha1.FailureTolerance{Type: corev1alpha1.FailureToleranceTypeZone},
		}}
	}
	return shoot
}

// Objects returns everything to apply, namespace and cloud profiles first.
func (l *Landscape) Objects() []runtime.Object {
	objs := []runtime.Object{l.Namespace}
	for _, o := range l.CloudProfiles {
		objs = append(objs, o.DeepCopy())
	}
	for _, o := range l.Seeds {
		objs = append(objs, o.DeepCopy())
	}
	for _, o := range l.Shoots {
		objs = append(objs, o.DeepCopy())
	}
	return objs
}
