package parity

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/controlplane/gardenerlandscape"
	"github.com/graft-dev/graft/pkg/coretest"
)

// GardenNamespace holds the region ConfigMaps, as Gardener's scheduler reads
// them.
const GardenNamespace = "garden"

// Landscape is one generated garden: Gardener objects as gardener-apiserver
// serves them (status included), and the unscheduled shoots to decide.
type Landscape struct {
	Strategy string
	Objects  []*unstructured.Unstructured
	Pending  []string
}

// The vocabulary landscapes are drawn from: small, so that seeds and shoots
// meet on regions, zones, labels, taints, networks and domains often.
var (
	regions   = []string{"eu-west-1", "eu-west-2", "eu-central-1", "us-east-1"}
	taintKeys = []string{v1alpha1.SeedTaintProtected, "maintenance", "dedicated"}
	// projects and the namespaces they own: team-x is not garden-<project>.
	projects = [][2]string{{"dev", "garden-dev"}, {"web", "team-x"}}
	// Seed networks, IPv4 and IPv6: some overlap the shoots' (below), most
	// do not; an IPv4 overlap does not count, an IPv6 one does.
	seedNodes    = [2][]string{{"10.250.0.0/16", "10.1.0.0/16", "10.2.0.0/16"}, {"fd00:250::/64", "fd00:1::/64"}}
	seedPods     = [2][]string{{"10.96.0.0/11", "10.96.0.0/11", "100.96.0.0/11"}, {"fd00:96::/56", "fd01:96::/56"}}
	seedServices = [2][]string{{"10.64.0.0/13", "10.64.0.0/13", "100.64.0.0/13"}, {"fd00:64::/108", "fd01:64::/108"}}
	seedDefaults = [2][2]string{{"100.96.0.0/11", "100.64.0.0/13"}, {"fd02:96::/56", "fd02:64::/108"}}
	// Shoot networks; now and then one in a range Gardener reserves.
	shootNodes = [2][]string{{"10.180.0.0/16", "10.180.0.0/16", "10.180.0.0/16", "10.180.0.0/16", "10.250.0.0/16", "10.250.0.0/16", "10.250.0.0/16", "10.250.0.0/16", "10.250.0.0/16", "242.0.0.0/16"}, {"fd00:180::/64", "fd00:180::/64", "fd00:250::/64"}}
	shootPods  = [2][]string{{"", "100.96.0.0/11", "10.100.0.0/16"}, {"", "fd00:96::/64", "fd03:96::/56"}}
	shootSvcs  = [2][]string{{"", "100.64.0.0/13", "10.64.0.0/13"}, {"", "fd00:64::/112", "fd03:64::/108"}}
)

// generator draws one landscape.
type generator struct {
	rng     *rand.Rand
	objects []*unstructured.Unstructured
	seeds   []*v1alpha1.Seed
	err     error
}

func (g *generator) chance(p float64) bool { return g.rng.Float64() < p }

func pick[T any](g *generator, from []T) T { return from[g.rng.IntN(len(from))] }

// Generate draws a landscape of every feature Gardener's scheduler decides
// with, decided with strategy (SameRegion or MinimalDistance).
func Generate(rng *rand.Rand, strategy string) (*Landscape, error) {
	g := &generator{rng: rng}
	for _, p := range projects {
		g.add(map[string]any{
			"apiVersion": "core.gardener.cloud/v1beta1", "kind": "Project",
			"metadata": map[string]any{"name": p[0]},
			"spec":     map[string]any{"namespace": p[1]},
		})
	}
	profiles := g.cloudProfiles()
	if strategy == "MinimalDistance" && g.chance(0.7) {
		g.regionConfig()
	}
	for i := range 4 + g.rng.IntN(9) {
		g.seed(fmt.Sprintf("seed-%d", i))
	}
	for i := range g.rng.IntN(12) {
		g.boundShoot(fmt.Sprintf("bound-%d", i))
	}
	l := &Landscape{Strategy: strategy}
	for i := range 4 + g.rng.IntN(5) {
		l.Pending = append(l.Pending, g.pendingShoot(fmt.Sprintf("s-%d", i), profiles))
	}
	l.Objects = g.objects
	return l, g.err
}

func (g *generator) add(obj map[string]any) {
	g.objects = append(g.objects, &unstructured.Unstructured{Object: obj})
}

// asGardener is a graft object of kind as the Gardener object of the same
// fields.
func (g *generator) asGardener(kind string, obj runtime.Object) map[string]any {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil && g.err == nil {
		g.err = err
	}
	m["apiVersion"], m["kind"] = "core.gardener.cloud/v1beta1", kind
	delete(m["metadata"].(map[string]any), "creationTimestamp")
	return m
}

// profile is a cloud profile a pending shoot may name.
type profile struct {
	kind, name, namespace, typ string
}

// cloudProfiles adds the aws and gcp CloudProfiles, perhaps with a seed
// selector and zone pinning, and a NamespacedCloudProfile of aws.
func (g *generator) cloudProfiles() []profile {
	var out []profile
	for _, typ := range []string{"aws", "gcp"} {
		cp := coretest.MakeCloudProfile(typ).Regions(regions...).Obj()
		cp.Spec.Type = typ
		g.profileSpec(&cp.Spec)
		g.add(g.asGardener("CloudProfile", cp))
		out = append(out, profile{kind: "CloudProfile", name: typ, typ: typ})
	}
	// A namespaced profile whose merged spec is aws's with its own selector.
	spec := coretest.MakeCloudProfile("aws").Regions(regions...).Obj().Spec
	g.profileSpec(&spec)
	ncp := &v1alpha1.NamespacedCloudProfile{
		ObjectMeta: metav1.ObjectMeta{Name: "aws-team", Namespace: projects[0][1]},
		Spec:       v1alpha1.NamespacedCloudProfileSpec{Parent: v1alpha1.CloudProfileReference{Kind: "CloudProfile", Name: "aws"}},
		Status:     v1alpha1.NamespacedCloudProfileStatus{CloudProfileSpec: spec},
	}
	g.add(g.asGardener("NamespacedCloudProfile", ncp))
	return append(out, profile{kind: "NamespacedCloudProfile", name: ncp.Name, namespace: ncp.Namespace, typ: "aws"})
}

func (g *generator) profileSpec(spec *v1alpha1.CloudProfileSpec) {
	switch g.rng.IntN(6) {
	case 0:
		spec.SeedSelector = &v1alpha1.SeedSelector{LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}}
	case 1:
		spec.SeedSelector = &v1alpha1.SeedSelector{ProviderTypes: []string{"*"}}
	}
	if g.chance(0.6) {
		spec.ControlPlane = &v1alpha1.CloudProfileControlPlane{AllowZonePinning: true}
	}
}

// regionConfig adds a region ConfigMap for both profiles with random
// distances between some regions.
func (g *generator) regionConfig() {
	data := map[string]string{}
	for _, from := range regions {
		if g.chance(0.3) {
			continue
		}
		var lines []string
		for _, to := range regions {
			if to != from && g.chance(0.6) {
				lines = append(lines, fmt.Sprintf("%s: %d", to, g.rng.IntN(200)))
			}
		}
		data[from] = strings.Join(lines, "\n")
	}
	cm := coretest.RegionConfigMap(GardenNamespace, "regions", "aws,gcp", data)
	cm.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(cm)
	if err != nil && g.err == nil {
		g.err = err
	}
	delete(m["metadata"].(map[string]any), "creationTimestamp")
	g.add(m)
}

// zonesOf are up to n zones of region.
func (g *generator) zonesOf(region string, n int) []string {
	var zones []string
	for _, z := range []string{"a", "b", "c"} {
		if len(zones) < n && g.chance(0.7) {
			zones = append(zones, region+z)
		}
	}
	return zones
}

func (g *generator) seed(name string) {
	region := pick(g, regions)
	family := 0
	if g.chance(0.25) {
		family = 1
	}
	s := coretest.MakeSeed(name).Provider(pick(g, []string{"aws", "aws", "gcp"}), region).
		Zones(g.zonesOf(region, 3)...).Label("env", pick(g, []string{"prod", "dev"})).
		Networks(pick(g, seedNodes[family]), pick(g, seedPods[family]), pick(g, seedServices[family]))
	if g.chance(0.7) {
		s.ShootDefaults(seedDefaults[family][0], seedDefaults[family][1])
	}
	for _, k := range taintKeys {
		if g.chance(0.12) {
			var value *string
			if g.chance(0.3) {
				value = ptr.To("x")
			}
			s.Taint(k, value, "")
		}
	}
	if g.chance(0.6) {
		s.Allocatable(int64(g.rng.IntN(8)))
	}
	switch g.rng.IntN(10) {
	case 0:
		s.ZoneSelection(v1alpha1.ZoneSelectionModeEnforce, s.Spec.Provider.Zones...)
	case 1:
		s.ZoneSelection(v1alpha1.ZoneSelectionModePrefer, s.Spec.Provider.Zones...)
	}
	if g.chance(0.25) {
		s.AccessRestrictions("eu-access-only")
	}
	switch g.rng.IntN(3) {
	case 0:
		s.DefaultDomains("shoots.example.com")
	case 1:
		s.DefaultDomains("shoots." + name + ".example.com")
	}
	if g.chance(0.08) {
		s.Annotation(v1alpha1.AnnotationEmergencyStopShootReconciliations, "true")
	}
	if g.chance(0.3) {
		s.Backup("aws").Condition(v1alpha1.SeedBackupBucketsReady, pick(g, []v1alpha1.ConditionStatus{v1alpha1.ConditionTrue, v1alpha1.ConditionTrue, v1alpha1.ConditionFalse}))
	}
	switch g.rng.IntN(20) {
	case 0:
		s.Condition(v1alpha1.SeedGardenletReady, v1alpha1.ConditionFalse)
	case 1:
		s.Status.LastOperation = nil
	case 2:
		s.Spec.Settings = &v1alpha1.SeedSettings{Scheduling: &v1alpha1.SeedSettingScheduling{Visible: false}}
	}
	seed := s.Obj()
	obj, err := gardenerlandscape.Seed(seed, "dns")
	if err != nil {
		g.err = err
		return
	}
	status, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&seed.Status)
	if err != nil {
		g.err = err
		return
	}
	obj.Object["status"] = status
	if g.chance(0.05) {
		obj.SetDeletionTimestamp(&metav1.Time{Time: time.Unix(1_800_000_000, 0)})
		obj.SetFinalizers([]string{"gardener"})
	}
	g.objects = append(g.objects, obj)
	g.seeds = append(g.seeds, seed)
}

// boundShoot adds a shoot on a seed, sometimes migrating from another: it
// counts on the seeds it uses.
func (g *generator) boundShoot(name string) {
	p := pick(g, projects)
	on := pick(g, g.seeds)
	s := coretest.MakeShoot(p[1], name).Provider(on.Spec.Provider.Type, on.Spec.Provider.Region).
		CloudProfileRef("CloudProfile", on.Spec.Provider.Type).Seed(on.Name).StatusSeed(on.Name)
	if g.chance(0.2) {
		s.StatusSeed(pick(g, g.seeds).Name)
	}
	g.shoot(s.Obj())
}

func (g *generator) shoot(shoot *v1alpha1.Shoot) {
	obj, err := gardenerlandscape.Shoot(shoot, "credentials")
	if err != nil {
		g.err = err
		return
	}
	if shoot.Status.SeedName != nil {
		obj.Object["status"] = map[string]any{"seedName": *shoot.Status.SeedName}
	}
	g.objects = append(g.objects, obj)
}

// pendingShoot adds a shoot without a seed drawing on every field the
// decision reads, and returns its key.
func (g *generator) pendingShoot(name string, profiles []profile) string {
	cp := pick(g, profiles)
	namespace := pick(g, projects)[1]
	if cp.namespace != "" {
		namespace = cp.namespace
	}
	// Mostly a region some seed is in, so that SameRegion has candidates.
	region := pick(g, regions)
	if g.chance(0.7) {
		region = pick(g, g.seeds).Spec.Provider.Region
	}
	// Gardener's admission keeps a shoot to its cloud profile's provider type.
	typ := cp.typ
	// gardener-apiserver defaults the IP families to IPv4.
	family, families := 0, v1alpha1.IPFamilyIPv4
	if g.chance(0.25) {
		family, families = 1, v1alpha1.IPFamilyIPv6
	}
	s := coretest.MakeShoot(namespace, name).Provider(typ, region).CloudProfileRef(cp.kind, cp.name).
		Networks(pick(g, shootNodes[family]), pick(g, shootPods[family]), pick(g, shootSvcs[family]), families)
	for _, k := range taintKeys {
		if g.chance(0.3) {
			var value *string
			if g.chance(0.3) {
				value = ptr.To(pick(g, []string{"x", "y"}))
			}
			s.Tolerate(k, value, "", nil)
		}
	}
	switch g.rng.IntN(8) {
	case 0:
		s.SelectSeeds(map[string]string{"env": pick(g, []string{"prod", "dev"})})
	case 1:
		s.SeedSelector(&v1alpha1.SeedSelector{ProviderTypes: []string{pick(g, []string{"*", "gcp", "aws"})}})
	}
	if g.chance(0.1) {
		s.Purpose(v1alpha1.ShootPurposeTesting)
	}
	zonal := false
	switch g.rng.IntN(8) {
	case 0:
		s.FailureTolerance(v1alpha1.FailureToleranceTypeZone)
		zonal = true
	case 1:
		s.FailureTolerance(v1alpha1.FailureToleranceTypeNode)
	}
	if g.chance(0.6) {
		s.Workers(g.zonesOf(region, 2))
	}
	if g.chance(0.25) {
		if zonal {
			s.PinZones(region+"a", region+"b", region+"c")
		} else {
			s.PinZones(region + pick(g, []string{"a", "b", "c"}))
		}
	}
	if g.chance(0.2) {
		s.AccessRestrictions("eu-access-only")
	}
	if g.chance(0.2) {
		project := projects[0][0]
		if namespace == projects[1][1] {
			project = projects[1][0]
		}
		s.Domain(name + "." + project + "." + pick(g, []string{"shoots.example.com", "shoots.seed-0.example.com", "elsewhere.example.org"}))
	}
	g.shoot(s.Obj())
	return namespace + "/" + name
}
