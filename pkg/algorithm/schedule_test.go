package algorithm

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/coretest"
)

type scheduleCase struct {
	name    string
	seeds   []*v1alpha1.Seed
	bound   []*v1alpha1.Shoot // shoots already counted
	shoot   *v1alpha1.Shoot
	profile *v1alpha1.CloudProfile // coretest.MakeCloudProfile("aws").Obj() when nil
	cm      *corev1.ConfigMap
	config  Config

	want           string            // chosen seed; empty means an error is expected
	wantErr        []string          // substrings of the error
	wantNoCapacity bool              // IsNoCapacity of the error
	wantFilters    map[string]Filter // Explain: the filter that rejected each named seed
	wantDistances  map[string]int    // Explain: distances of the named seeds
	wantOther      bool              // the error is not a *ScheduleError
	mutateProfile  func(*v1alpha1.CloudProfile)
}

func (tc scheduleCase) run(t *testing.T) {
	t.Helper()
	profile := tc.profile
	if profile == nil {
		profile = coretest.MakeCloudProfile("aws").Obj()
	}
	if tc.mutateProfile != nil {
		tc.mutateProfile(profile)
	}
	snap := snapshotOf(tc.seeds, tc.bound...)
	in := Inputs{CloudProfile: profile, RegionConfigMap: tc.cm, Config: tc.config}
	got, err := Schedule(tc.shoot, snap, in)
	if tc.want != "" {
		if err != nil || got != tc.want {
			t.Fatalf("Schedule = %q, %v; want %q", got, err, tc.want)
		}
	} else {
		if err == nil {
			t.Fatalf("Schedule = %q; want an error", got)
		}
		for _, s := range tc.wantErr {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("error %q does not contain %q", err, s)
			}
		}
		if IsNoCapacity(err) != tc.wantNoCapacity {
			t.Errorf("IsNoCapacity = %v, want %v (%v)", !tc.wantNoCapacity, tc.wantNoCapacity, err)
		}
		_, isSchedule := err.(*ScheduleError)
		if isSchedule == tc.wantOther {
			t.Errorf("error type %T, want other=%v", err, tc.wantOther)
		}
	}
	// Explain must agree with Schedule and with the expected filters.
	e := Explain(tc.shoot, snap, in)
	if e.Seed != got || (e.Err == nil) != (err == nil) {
		t.Fatalf("Explain chose %q (%v), Schedule %q (%v)", e.Seed, e.Err, got, err)
	}
	if err != nil && e.Err.Error() != err.Error() {
		t.Errorf("Explain error %q differs from Schedule error %q", e.Err, err)
	}
	results := map[string]SeedResult{}
	for _, r := range e.Seeds {
		results[r.Seed] = r
	}
	for seed, f := range tc.wantFilters {
		r, ok := results[seed]
		if !ok {
			t.Errorf("no explanation for seed %s", seed)
			continue
		}
		if r.Filter != f {
			t.Errorf("seed %s rejected by %q (%s), want %q", seed, r.Filter, r.Message, f)
		}
		if f != "" && r.Message == "" {
			t.Errorf("seed %s rejected without a message", seed)
		}
	}
	for seed, d := range tc.wantDistances {
		r := results[seed]
		if r.Distance == nil || *r.Distance != d {
			t.Errorf("seed %s distance %v, want %d", seed, r.Distance, d)
		}
	}
}

func seeds(s ...*v1alpha1.Seed) []*v1alpha1.Seed { return s }

func TestUsableFilter(t *testing.T) {
	deleting := coretest.MakeSeed("a-deleting").Obj()
	deleting.DeletionTimestamp = &metav1.Time{}
	invisible := coretest.MakeSeed("b-invisible").Obj()
	invisible.Spec.Settings = &v1alpha1.SeedSettings{Scheduling: &v1alpha1.SeedSettingScheduling{Visible: false}}
	noLastOp := coretest.MakeSeed("c-no-last-operation").Obj()
	noLastOp.Status.LastOperation = nil
	notReady := coretest.MakeSeed("d-not-ready").Condition(v1alpha1.SeedGardenletReady, v1alpha1.ConditionFalse).Obj()
	backupNotReady := coretest.MakeSeed("e-backup-not-ready").Condition(v1alpha1.SeedBackupBucketsReady, v1alpha1.ConditionUnknown).Obj()
	backupNotReady.Spec.Backup = &v1alpha1.SeedBackup{Provider: "aws"}
	missingGardenlet := coretest.MakeSeed("f-no-gardenlet-condition").Obj()
	missingGardenlet.Status.Conditions = nil

	for _, tc := range []scheduleCase{
		{
			name:  "every kind of unusable seed",
			seeds: seeds(deleting, invisible, noLastOp, notReady, backupNotReady, missingGardenlet),
			shoot: coretest.MakeShoot("garden-dev", "s").Obj(),
			wantErr: []string{
				"none of the 6 seeds is valid for scheduling (not deleting, visible and ready): {a-deleting => seed is being deleted, b-invisible => seed is not visible",
				"c-no-last-operation => seed has no status.lastOperation",
				"d-not-ready => condition GardenletReady is False",
				"e-backup-not-ready => condition BackupBucketsReady is Unknown (the seed has spec.backup)",
				"f-no-gardenlet-condition => condition GardenletReady is missing}",
			},
			wantFilters: map[string]Filter{"a-deleting": FilterUsable, "b-invisible": FilterUsable, "f-no-gardenlet-condition": FilterUsable},
		},
		{
			name: "absent settings and absent scheduling settings mean visible",
			seeds: seeds(func() *v1alpha1.Seed {
				s := coretest.MakeSeed("b").Obj()
				s.Spec.Settings = &v1alpha1.SeedSettings{}
				return s
			}(), coretest.MakeSeed("c").Obj()),
			bound: fill("c", 1),
			shoot: coretest.MakeShoot("garden-dev", "s").Obj(),
			want:  "b",
		},
		{
			name:  "BackupBucketsReady only matters with spec.backup",
			seeds: seeds(coretest.MakeSeed("a").Condition(v1alpha1.SeedBackupBucketsReady, v1alpha1.ConditionFalse).Obj()),
			shoot: coretest.MakeShoot("garden-dev", "s").Obj(),
			want:  "a",
		},
		{
			name:    "no seeds at all",
			shoot:   coretest.MakeShoot("garden-dev", "s").Obj(),
			wantErr: []string{"none of the 0 seeds is valid for scheduling (not deleting, visible and ready)"},
		},
		{
			name:    "the example of the issue",
			seeds:   seeds(notReady, coretest.MakeSeed("x").Condition(v1alpha1.SeedGardenletReady, v1alpha1.ConditionUnknown).Obj(), deleting),
			shoot:   coretest.MakeShoot("garden-dev", "s").Obj(),
			wantErr: []string{"none of the 3 seeds is valid for scheduling (not deleting, visible and ready)"},
		},
	} {
		t.Run(tc.name, tc.run)
	}
}

func TestSelectorAndProviderFilters(t *testing.T) {
	for _, tc := range []scheduleCase{
		{
			name:  "cloud profile selector",
			seeds: seeds(coretest.MakeSeed("a").Obj(), coretest.MakeSeed("b").Label("env", "prod").Obj()),
			shoot: coretest.MakeShoot("garden-dev", "s").Obj(),
			mutateProfile: func(p *v1alpha1.CloudProfile) {
				p.Spec.SeedSelector = &v1alpha1.SeedSelector{LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}}
			},
			want:        "b",
			wantFilters: map[string]Filter{"a": FilterCloudProfileSeedSelector},
		},
		{
			name:  "shoot selector with matchExpressions",
			seeds: seeds(coretest.MakeSeed("a").Label("tier", "gold").Obj(), coretest.MakeSeed("b").Label("tier", "bronze").Obj()),
			shoot: coretest.MakeShoot("garden-dev", "s").With(func(s *v1alpha1.Shoot) {
				s.Spec.SeedSelector = &v1alpha1.SeedSelector{LabelSelector: metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
					{Key: "tier", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"gold"}},
				}}}
			}).Obj(),
			want:        "b",
			wantFilters: map[string]Filter{"a": FilterShootSeedSelector},
		},
		{
			name:    "no seed matches the shoot selector",
			seeds:   seeds(coretest.MakeSeed("a").Obj()),
			shoot:   coretest.MakeShoot("garden-dev", "s").SeedSelector(&v1alpha1.SeedSelector{LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{"x": "y"}}}).Obj(),
			wantErr: []string{"none out of the 1 seeds has the matching labels required by seed selector of 'Shoot' (selector: 'x=y')"},
		},
		{
			name:  "invalid selector is a clear error, not a panic",
			seeds: seeds(coretest.MakeSeed("a").Obj()),
			shoot: coretest.MakeShoot("garden-dev", "s").With(func(s *v1alpha1.Shoot) {
				s.Spec.SeedSelector = &v1alpha1.SeedSelector{LabelSelector: metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
					{Key: "tier", Operator: "Bogus"},
				}}}
			}).Obj(),
			wantErr:   []string{"label selector conversion failed for the seedSelector of shoot garden-dev/s", "Bogus"},
			wantOther: true,
		},
		{
			name:        "other provider types are rejected",
			seeds:       seeds(coretest.MakeSeed("a").Provider("gcp", "eu-west-1").Obj()),
			shoot:       coretest.MakeShoot("garden-dev", "s").Obj(),
			wantErr:     []string{`none out of the 1 seeds has a matching provider for "aws"`, `a => seed provider type "gcp" is not the shoot's "aws"`},
			wantFilters: map[string]Filter{"a": FilterProvider},
		},
		{
			name:  "cloud profile providerTypes * widens to all; MinimalDistance then picks",
			seeds: seeds(coretest.MakeSeed("a").Provider("gcp", "eu-west-1").Obj()),
			shoot: coretest.MakeShoot("garden-dev", "s").Obj(),
			mutateProfile: func(p *v1alpha1.CloudProfile) {
				p.Spec.SeedSelector = &v1alpha1.SeedSelector{ProviderTypes: []string{"*"}}
			},
			config: Config{Strategy: StrategyMinimalDistance},
			want:   "a",
		},
		{
			// As in Gardener, which reads them only to refuse a selector
			// change that no longer matches the shoot's seed.
			name:  "the shoot's providerTypes do not steer the decision",
			seeds: seeds(coretest.MakeSeed("gcp").Provider("gcp", "eu-west-1").Obj(), coretest.MakeSeed("azure").Provider("azure", "eu-west-1").Obj()),
			shoot: coretest.MakeShoot("garden-dev", "s").SeedSelector(&v1alpha1.SeedSelector{ProviderTypes: []string{"azure"}}).Obj(),
			mutateProfile: func(p *v1alpha1.CloudProfile) {
				p.Spec.SeedSelector = &v1alpha1.SeedSelector{ProviderTypes: []string{"gcp", "azure"}}
			},
			config:      Config{Strategy: StrategyMinimalDistance},
			want:        "azure",
			wantFilters: map[string]Filter{"gcp": FilterLeastUsed},
		},
		{
			name:  "SameRegion still needs the shoot's provider type after widening",
			seeds: seeds(coretest.MakeSeed("gcp").Provider("gcp", "eu-west-1").Obj()),
			shoot: coretest.MakeShoot("garden-dev", "s").Obj(),
			mutateProfile: func(p *v1alpha1.CloudProfile) {
				p.Spec.SeedSelector = &v1alpha1.SeedSelector{ProviderTypes: []string{"*"}}
			},

			wantErr:     []string{"no matching seed candidate found for Configuration (Cloud Profile 'aws', Region 'eu-west-1', SeedDeterminationStrategy 'SameRegion')"},
			wantFilters: map[string]Filter{"gcp": FilterStrategy},
		},
	} {
		t.Run(tc.name, tc.run)
	}
}

func TestHighAvailabilityFilter(t *testing.T) {
	for _, tc := range []scheduleCase{
		{name: "zone needs 3 zones", seeds: seeds(coretest.MakeSeed("a").Zones("1", "2").Obj(), coretest.MakeSeed("b").Obj()), bound: fill("b", 3),
			shoot: coretest.MakeShoot("garden-dev", "s").FailureTolerance(v1alpha1.FailureToleranceTypeZone).Obj(), want: "b", wantFilters: map[string]Filter{"a": FilterHighAvailability}},
		{name: "no seed with 3 zones", seeds: seeds(coretest.MakeSeed("a").Zones("1").Obj()), shoot: coretest.MakeShoot("garden-dev", "s").FailureTolerance(v1alpha1.FailureToleranceTypeZone).Obj(),
			wantErr: []string{"none of the 1 seeds has at least 3 zones for hosting a shoot control plane with failure tolerance type 'zone'", "seed has 1 zone(s)"}},
		{name: "node tolerance needs no zones", seeds: seeds(coretest.MakeSeed("a").Zones().Obj()), shoot: coretest.MakeShoot("garden-dev", "s").FailureTolerance(v1alpha1.FailureToleranceTypeNode).Obj(), want: "a"},
	} {
		t.Run(tc.name, tc.run)
	}
}

// TestNetworksFilter: Gardener's network rules. An IPv4 shoot network may
// overlap the seed's (the VPN between them maps the networks apart); an IPv6
// one may not; no shoot network may lie in a range Gardener reserves for the
// mapping. Pods and services the shoot leaves empty take the seed's defaults
// of the shoot's IP families, pods only for a shoot with workers.
func TestNetworksFilter(t *testing.T) {
	dual := func(name string) *coretest.SeedWrapper {
		return coretest.MakeSeed(name).Networks("", "10.96.0.0/11,fd00:10::/48", "10.64.0.0/13,fd00:64::/108")
	}
	for _, tc := range []scheduleCase{
		{
			name:  "an IPv4 shoot network may overlap the seed's",
			seeds: seeds(coretest.MakeSeed("a").Networks("10.180.0.0/16", "100.96.0.0/11", "10.64.0.0/13").Obj()),
			shoot: coretest.MakeShoot("garden-dev", "s").Obj(),
			want:  "a",
		},
		{
			name:        "IPv6 pods overlap seed pods",
			seeds:       seeds(dual("a").Obj(), coretest.MakeSeed("b").Obj()),
			shoot:       coretest.MakeShoot("garden-dev", "s").Networks("fd00:99::/64", "fd00:10::/56", "fd00:99:1::/108", v1alpha1.IPFamilyIPv6).Obj(),
			want:        "b",
			wantFilters: map[string]Filter{"a": FilterNetworks},
		},
		{
			name:    "IPv6 shoot nodes overlap seed services (every pair is checked)",
			seeds:   seeds(dual("a").Obj()),
			shoot:   coretest.MakeShoot("garden-dev", "s").Networks("fd00:64::/64", "fd00:99::/56", "fd00:99:1::/108", v1alpha1.IPFamilyIPv6).Obj(),
			wantErr: []string{"0/1 seed cluster candidate(s) are eligible for scheduling: {a => invalid networks: [shoot node network fd00:64::/64 intersects with seed service network fd00:64::/108]}"},
		},
		{
			name:        "shoot defaults fill empty pods and services",
			seeds:       seeds(dual("a").ShootDefaults("fd00:10::/56", "").Obj(), coretest.MakeSeed("b").Obj()),
			shoot:       coretest.MakeShoot("garden-dev", "s").Workers([]string{"a"}).Networks("fd00:99::/64", "", "", v1alpha1.IPFamilyIPv6).Obj(),
			want:        "b",
			wantFilters: map[string]Filter{"a": FilterNetworks},
		},
		{
			name:    "the message names the default",
			seeds:   seeds(dual("a").ShootDefaults("fd00:10::/56", "").Obj()),
			shoot:   coretest.MakeShoot("garden-dev", "s").Workers([]string{"a"}).Networks("fd00:99::/64", "", "", v1alpha1.IPFamilyIPv6).Obj(),
			wantErr: []string{"shoot pod network fd00:10::/56 (seed's shoot default) intersects with seed pod network fd00:10::/48"},
		},
		{
			name:  "an IPv6 default does not apply to an IPv4 shoot",
			seeds: seeds(dual("a").ShootDefaults("fd00:10::/56", "").Obj()),
			shoot: coretest.MakeShoot("garden-dev", "s").Workers([]string{"a"}).Networks("10.180.0.0/16", "", "").Obj(),
			want:  "a",
		},
		{
			name:  "a workerless shoot takes no default pod network",
			seeds: seeds(dual("a").ShootDefaults("fd00:10::/56", "").Obj()),
			shoot: coretest.MakeShoot("garden-dev", "s").Networks("fd00:99::/64", "", "", v1alpha1.IPFamilyIPv6).Obj(),
			want:  "a",
		},
		{
			name:        "IPv6 networks overlap",
			seeds:       seeds(coretest.MakeSeed("a").Networks("2001:db8::/48", "fd00:100::/56", "fd00:200::/108").Obj(), coretest.MakeSeed("b").Networks("2001:db9::/48", "fd01:100::/56", "fd01:200::/108").Obj()),
			shoot:       coretest.MakeShoot("garden-dev", "s").Networks("2001:db8:0:1::/64", "fd02::/56", "fd03::/108", v1alpha1.IPFamilyIPv6).Obj(),
			want:        "b",
			wantFilters: map[string]Filter{"a": FilterNetworks},
		},
		{
			name:    "a shoot network in a reserved range is refused on every seed",
			seeds:   seeds(coretest.MakeSeed("a").Obj(), coretest.MakeSeed("b").Obj()),
			shoot:   coretest.MakeShoot("garden-dev", "s").Networks("242.1.0.0/16", "", "").Obj(),
			wantErr: []string{"a => invalid networks: [shoot node network 242.1.0.0/16 intersects with reserved shoot node network mapping range 242.0.0.0/8]"},
		},
		{
			name:    "a seed default in a reserved range is refused for a shoot that takes it",
			seeds:   seeds(coretest.MakeSeed("a").ShootDefaults("", "243.0.0.0/16").Obj()),
			shoot:   coretest.MakeShoot("garden-dev", "s").Networks("10.180.0.0/16", "", "").Obj(),
			wantErr: []string{"shoot service network 243.0.0.0/16 (seed's shoot default) intersects with reserved shoot service network mapping range 243.0.0.0/8"},
		},
		{
			name:    "a seed with a broken CIDR is rejected",
			seeds:   seeds(coretest.MakeSeed("a").Networks("", "banana", "10.64.0.0/13").Obj()),
			shoot:   coretest.MakeShoot("garden-dev", "s").Obj(),
			wantErr: []string{`a => invalid networks: seed pod network: "banana" is not a CIDR`},
		},
		{
			name:      "a shoot with a broken CIDR is an input error",
			seeds:     seeds(coretest.MakeSeed("a").Obj()),
			shoot:     coretest.MakeShoot("garden-dev", "s").Networks("10.0.0.0/33", "", "").Obj(),
			wantErr:   []string{`shoot garden-dev/s: node network: "10.0.0.0/33" is not a CIDR`},
			wantOther: true,
		},
		{
			// Gardener checks the networks of a shoot with spec.networking
			// only.
			name:  "a shoot without spec.networking is not checked",
			seeds: seeds(dual("a").Obj()),
			shoot: coretest.MakeShoot("garden-dev", "s").With(func(s *v1alpha1.Shoot) { s.Spec.Networking = nil }).StatusNetworks(nil, []string{"fd00:10::/56"}, nil).Obj(),
			want:  "a",
		},
	} {
		t.Run(tc.name, tc.run)
	}
}

func TestTaintsFilter(t *testing.T) {
	const unsched = v1alpha1.SeedTaintUnschedulable
	for _, tc := range []scheduleCase{
		{
			name:        "a taint without effect is NoSchedule",
			seeds:       seeds(coretest.MakeSeed("a").Taint(unsched, nil, "").Obj(), coretest.MakeSeed("b").Obj()),
			bound:       fill("b", 5),
			shoot:       coretest.MakeShoot("garden-dev", "s").Obj(),
			want:        "b",
			wantFilters: map[string]Filter{"a": FilterTaints},
		},
		{
			name:    "the issue's example",
			seeds:   seeds(coretest.MakeSeed("seed-a").Taint("x", nil, "").Obj(), coretest.MakeSeed("seed-b").Allocatable(0).Obj()),
			shoot:   coretest.MakeShoot("garden-dev", "s").Obj(),
			wantErr: []string{"0/2 seed cluster candidate(s) are eligible for scheduling: {seed-a => shoot does not tolerate the seed's taints (x:NoSchedule), seed-b => seed does not have available capacity for shoots (0 counted, 0 allocatable)}"},
			// seed-b would take the shoot if it had room.
			wantNoCapacity: true,
		},
		{
			name:  "toleration with empty effect tolerates NoSchedule",
			seeds: seeds(coretest.MakeSeed("a").Taint(unsched, nil, v1alpha1.TaintEffectNoSchedule).Obj()),
			shoot: coretest.MakeShoot("garden-dev", "s").Tolerate(unsched, nil, "", nil).Obj(),
			want:  "a",
		},
		{
			name:        "toleration for NoSchedule does not tolerate NoExecute",
			seeds:       seeds(coretest.MakeSeed("a").Taint(unsched, nil, v1alpha1.TaintEffectNoExecute).Obj()),
			shoot:       coretest.MakeShoot("garden-dev", "s").Tolerate(unsched, nil, v1alpha1.TaintEffectNoSchedule, nil).Obj(),
			wantErr:     []string{"a => shoot does not tolerate the seed's taints (seed.gardener.cloud/unschedulable:NoExecute)"},
			wantFilters: map[string]Filter{"a": FilterTaints},
		},
		{
			name:  "toleration for NoSchedule tolerates a taint without effect",
			seeds: seeds(coretest.MakeSeed("a").Taint(unsched, nil, "").Obj()),
			shoot: coretest.MakeShoot("garden-dev", "s").Tolerate(unsched, nil, v1alpha1.TaintEffectNoSchedule, nil).Obj(),
			want:  "a",
		},
		{
			name:    "a toleration without value does not match a taint with value",
			seeds:   seeds(coretest.MakeSeed("a").Taint("dedicated", ptr.To("team-a"), "").Obj()),
			shoot:   coretest.MakeShoot("garden-dev", "s").Tolerate("dedicated", nil, "", nil).Obj(),
			wantErr: []string{"dedicated=team-a:NoSchedule"},
		},
		{
			name:    "values must be equal",
			seeds:   seeds(coretest.MakeSeed("a").Taint("dedicated", ptr.To("team-a"), "").Obj()),
			shoot:   coretest.MakeShoot("garden-dev", "s").Tolerate("dedicated", ptr.To("team-b"), "", nil).Obj(),
			wantErr: []string{"dedicated=team-a:NoSchedule"},
		},
		{
			name:  "equal values match",
			seeds: seeds(coretest.MakeSeed("a").Taint("dedicated", ptr.To("team-a"), "").Obj()),
			shoot: coretest.MakeShoot("garden-dev", "s").Tolerate("dedicated", ptr.To("team-a"), "", nil).Obj(),
			want:  "a",
		},
		{
			name:  "a taint without value is matched by key",
			seeds: seeds(coretest.MakeSeed("a").Taint("dedicated", nil, "").Obj()),
			shoot: coretest.MakeShoot("garden-dev", "s").Tolerate("dedicated", ptr.To("anything"), "", nil).Obj(),
			want:  "a",
		},
		{
			name:        "an evicted shoot does not return to a seed whose NoExecute taint it tolerates only for a while",
			seeds:       seeds(coretest.MakeSeed("a").Taint(unsched, nil, v1alpha1.TaintEffectNoExecute).Obj(), coretest.MakeSeed("b").Obj()),
			bound:       fill("b", 5),
			shoot:       coretest.MakeShoot("garden-dev", "s").Tolerate(unsched, nil, "", ptr.To[int64](60)).Annotation(v1alpha1.AnnotationDescheduledFrom, "a").Obj(),
			want:        "b",
			wantFilters: map[string]Filter{"a": FilterTaints},
		},
		{
			name:    "the same shoot is told why it cannot return",
			seeds:   seeds(coretest.MakeSeed("a").Taint(unsched, nil, v1alpha1.TaintEffectNoExecute).Obj()),
			shoot:   coretest.MakeShoot("garden-dev", "s").Tolerate(unsched, nil, "", ptr.To[int64](60)).Annotation(v1alpha1.AnnotationDescheduledFrom, "a").Obj(),
			wantErr: []string{"a => shoot was evicted from this seed and tolerates its NoExecute taints only for a limited time (seed.gardener.cloud/unschedulable:NoExecute)"},
		},
		{
			name:  "a limited toleration still admits a shoot that was not evicted from the seed",
			seeds: seeds(coretest.MakeSeed("a").Taint(unsched, nil, v1alpha1.TaintEffectNoExecute).Obj()),
			shoot: coretest.MakeShoot("garden-dev", "s").Tolerate(unsched, nil, "", ptr.To[int64](60)).Annotation(v1alpha1.AnnotationDescheduledFrom, "other").Obj(),
			want:  "a",
		},
		{
			name:  "a toleration without time limit lets an evicted shoot return",
			seeds: seeds(coretest.MakeSeed("a").Taint(unsched, nil, v1alpha1.TaintEffectNoExecute).Obj()),
			shoot: coretest.MakeShoot("garden-dev", "s").Tolerate(unsched, nil, "", nil).Annotation(v1alpha1.AnnotationDescheduledFrom, "a").Obj(),
			want:  "a",
		},
		{
			name:    "every taint must be tolerated",
			seeds:   seeds(coretest.MakeSeed("a").Taint("one", nil, "").Taint("two", nil, v1alpha1.TaintEffectNoExecute).Obj()),
			shoot:   coretest.MakeShoot("garden-dev", "s").Tolerate("one", nil, "", nil).Obj(),
			wantErr: []string{"(two:NoExecute)"},
		},
		{
			name:        "PreferNoSchedule: a seed without the taint is preferred even when busier",
			seeds:       seeds(coretest.MakeSeed("a").Taint("soft", nil, v1alpha1.TaintEffectPreferNoSchedule).Obj(), coretest.MakeSeed("b").Obj()),
			bound:       fill("b", 10),
			shoot:       coretest.MakeShoot("garden-dev", "s").Obj(),
			want:        "b",
			wantFilters: map[string]Filter{"a": FilterPreferNoSchedule},
		},
		{
			name:        "PreferNoSchedule: used when nothing else is left after all filters",
			seeds:       seeds(coretest.MakeSeed("a").Taint("soft", nil, v1alpha1.TaintEffectPreferNoSchedule).Obj(), coretest.MakeSeed("b").Allocatable(1).Obj(), coretest.MakeSeed("c").Provider("aws", "us-east-1").Obj()),
			bound:       fill("b", 1),
			shoot:       coretest.MakeShoot("garden-dev", "s").Obj(),
			want:        "a",
			wantFilters: map[string]Filter{"b": FilterCapacity, "c": FilterStrategy},
		},
		{
			name:  "PreferNoSchedule: a tolerated taint does not count",
			seeds: seeds(coretest.MakeSeed("a").Taint("soft", nil, v1alpha1.TaintEffectPreferNoSchedule).Obj(), coretest.MakeSeed("b").Obj()),
			bound: fill("b", 10),
			shoot: coretest.MakeShoot("garden-dev", "s").Tolerate("soft", nil, v1alpha1.TaintEffectPreferNoSchedule, nil).Obj(),
			want:  "a",
		},
		{
			name:        "PreferNoSchedule: applies before the minimal distance",
			seeds:       seeds(coretest.MakeSeed("near").Taint("soft", nil, v1alpha1.TaintEffectPreferNoSchedule).Obj(), coretest.MakeSeed("far").Provider("aws", "us-west-1").Obj()),
			shoot:       coretest.MakeShoot("garden-dev", "s").Obj(),
			config:      Config{Strategy: StrategyMinimalDistance},
			want:        "far",
			wantFilters: map[string]Filter{"near": FilterPreferNoSchedule},
		},
	} {
		t.Run(tc.name, tc.run)
	}
}

func TestCapacityFilter(t *testing.T) {
	for _, tc := range []scheduleCase{
		{
			name:           "full seeds give a capacity error",
			seeds:          seeds(coretest.MakeSeed("a").Allocatable(2).Obj(), coretest.MakeSeed("b").Allocatable(1).Obj()),
			bound:          append(fill("a", 2), fill("b", 1)...),
			shoot:          coretest.MakeShoot("garden-dev", "s").Obj(),
			wantErr:        []string{"0/2 seed cluster candidate(s) are eligible for scheduling: {a => seed does not have available capacity for shoots (2 counted, 2 allocatable), b => seed does not have available capacity for shoots (1 counted, 1 allocatable)}"},
			wantNoCapacity: true,
		},
		{
			name:  "a seed with room is used",
			seeds: seeds(coretest.MakeSeed("a").Allocatable(2).Obj(), coretest.MakeSeed("b").Allocatable(3).Obj()),
			bound: append(fill("a", 2), fill("b", 2)...),
			shoot: coretest.MakeShoot("garden-dev", "s").Obj(),
			want:  "b",
		},
		{
			name:           "a migration counts on both seeds",
			seeds:          seeds(coretest.MakeSeed("a").Allocatable(1).Obj(), coretest.MakeSeed("b").Allocatable(1).Obj()),
			bound:          []*v1alpha1.Shoot{coretest.MakeShoot("garden-dev", "migrating").Seed("a").StatusSeed("b").Obj()},
			shoot:          coretest.MakeShoot("garden-dev", "s").Obj(),
			wantErr:        []string{"a => seed does not have available capacity", "b => seed does not have available capacity"},
			wantNoCapacity: true,
		},
		{
			name:  "status.seedName equal to spec.seedName counts once",
			seeds: seeds(coretest.MakeSeed("a").Allocatable(2).Obj()),
			bound: []*v1alpha1.Shoot{coretest.MakeShoot("garden-dev", "settled").Seed("a").StatusSeed("a").Obj()},
			shoot: coretest.MakeShoot("garden-dev", "s").Obj(),
			want:  "a",
		},
		{
			name:  "the shoot's own count is not held against its seed",
			seeds: seeds(coretest.MakeSeed("a").Allocatable(1).Obj()),
			bound: []*v1alpha1.Shoot{coretest.MakeShoot("garden-dev", "s").Seed("").StatusSeed("a").Obj()},
			shoot: coretest.MakeShoot("garden-dev", "s").Seed("").StatusSeed("a").Obj(),
			want:  "a",
		},
		{
			name:           "capacity is not the reason when another filter would reject anyway",
			seeds:          seeds(coretest.MakeSeed("a").Allocatable(0).Provider("aws", "us-east-1").Obj()),
			shoot:          coretest.MakeShoot("garden-dev", "s").Obj(),
			wantErr:        []string{"0/1 seed cluster candidate(s)"},
			wantNoCapacity: false,
		},
		{
			name:  "no allocatable means no limit",
			seeds: seeds(coretest.MakeSeed("a").Obj()),
			bound: fill("a", 1000),
			shoot: coretest.MakeShoot("garden-dev", "s").Obj(),
			want:  "a",
		},
	} {
		t.Run(tc.name, tc.run)
	}
}

func TestStrategies(t *testing.T) {
	cm := func(data map[string]string) *corev1.ConfigMap {
		return coretest.RegionConfigMap("garden", "aws-regions", "aws,gcp", data)
	}
	for _, tc := range []scheduleCase{
		{
			name:        "SameRegion keeps the shoot's region",
			seeds:       seeds(coretest.MakeSeed("a").Provider("aws", "eu-central-1").Obj(), coretest.MakeSeed("b").Obj()),
			bound:       fill("b", 5),
			shoot:       coretest.MakeShoot("garden-dev", "s").Obj(),
			want:        "b",
			wantFilters: map[string]Filter{"a": FilterStrategy},
		},
		{
			name:    "SameRegion without a seed in the region",
			seeds:   seeds(coretest.MakeSeed("a").Provider("aws", "eu-central-1").Obj()),
			shoot:   coretest.MakeShoot("garden-dev", "s").Obj(),
			wantErr: []string{"no matching seed candidate found for Configuration (Cloud Profile 'aws', Region 'eu-west-1', SeedDeterminationStrategy 'SameRegion'): {a => seed is in region \"eu-central-1\""},
		},
		{
			name:  "purpose testing may use any region of the provider",
			seeds: seeds(coretest.MakeSeed("a").Provider("aws", "us-east-1").Obj(), coretest.MakeSeed("b").Provider("aws", "ap-south-1").Obj(), coretest.MakeSeed("c").Provider("gcp", "eu-west-1").Obj()),
			bound: fill("a", 2),
			shoot: coretest.MakeShoot("garden-dev", "s").Purpose(v1alpha1.ShootPurposeTesting).Obj(),
			mutateProfile: func(p *v1alpha1.CloudProfile) {
				p.Spec.SeedSelector = &v1alpha1.SeedSelector{ProviderTypes: []string{"*"}}
			},

			config:      Config{Strategy: StrategyMinimalDistance},
			want:        "b",
			wantFilters: map[string]Filter{"a": FilterLeastUsed, "c": FilterStrategy},
		},
		{
			name:          "MinimalDistance from the ConfigMap",
			seeds:         seeds(coretest.MakeSeed("a").Provider("aws", "eu-central-1").Obj(), coretest.MakeSeed("b").Provider("aws", "us-east-1").Obj(), coretest.MakeSeed("c").Provider("aws", "eu-north-1").Obj()),
			bound:         fill("c", 1),
			shoot:         coretest.MakeShoot("garden-dev", "s").Obj(),
			cm:            cm(map[string]string{"eu-west-1": "eu-central-1: 10\neu-north-1: 10\nus-east-1: 50\n"}),
			config:        Config{Strategy: StrategyMinimalDistance},
			want:          "a",
			wantFilters:   map[string]Filter{"b": FilterMinimalDistance, "c": FilterLeastUsed},
			wantDistances: map[string]int{"a": 10, "b": 50, "c": 10},
		},
		{
			name:          "a region is at 0 from itself unless configured",
			seeds:         seeds(coretest.MakeSeed("same").Obj(), coretest.MakeSeed("other").Provider("aws", "eu-central-1").Obj()),
			bound:         fill("same", 9),
			shoot:         coretest.MakeShoot("garden-dev", "s").Obj(),
			cm:            cm(map[string]string{"eu-west-1": "eu-central-1: 1\n"}),
			config:        Config{Strategy: StrategyMinimalDistance},
			want:          "same",
			wantDistances: map[string]int{"same": 0, "other": 1},
		},
		{
			name:          "a configured distance to the own region wins over 0",
			seeds:         seeds(coretest.MakeSeed("same").Obj(), coretest.MakeSeed("other").Provider("aws", "eu-central-1").Obj()),
			shoot:         coretest.MakeShoot("garden-dev", "s").Obj(),
			cm:            cm(map[string]string{"eu-west-1": "eu-west-1: 5\neu-central-1: 1\n"}),
			config:        Config{Strategy: StrategyMinimalDistance},
			want:          "other",
			wantDistances: map[string]int{"same": 5, "other": 1},
		},
		{
			name:        "unlisted regions are set aside when some are listed",
			seeds:       seeds(coretest.MakeSeed("listed").Provider("aws", "us-east-1").Obj(), coretest.MakeSeed("unlisted").Provider("aws", "eu-central-1").Obj()),
			shoot:       coretest.MakeShoot("garden-dev", "s").Obj(),
			cm:          cm(map[string]string{"eu-west-1": "us-east-1: 80\n"}),
			config:      Config{Strategy: StrategyMinimalDistance},
			want:        "listed",
			wantFilters: map[string]Filter{"unlisted": FilterMinimalDistance},
		},
		{
			name:          "region listed with no seeds falls back to Levenshtein",
			seeds:         seeds(coretest.MakeSeed("a").Provider("aws", "eu-central-1").Obj(), coretest.MakeSeed("b").Provider("aws", "us-west-2").Obj()),
			shoot:         coretest.MakeShoot("garden-dev", "s").Obj(),
			cm:            cm(map[string]string{"eu-west-1": "ap-south-1: 1\n"}),
			config:        Config{Strategy: StrategyMinimalDistance},
			want:          "a",
			wantDistances: map[string]int{"a": 2, "b": 6},
		},
		{
			name:          "no ConfigMap: Levenshtein with orientation",
			seeds:         seeds(coretest.MakeSeed("a").Provider("aws", "us-east-1").Obj(), coretest.MakeSeed("b").Provider("aws", "eu-west-2").Obj(), coretest.MakeSeed("c").Provider("aws", "eu-1").Obj(), coretest.MakeSeed("d").Provider("aws", "eu-east-1").Obj()),
			shoot:         coretest.MakeShoot("garden-dev", "s").Obj(),
			config:        Config{Strategy: StrategyMinimalDistance},
			want:          "b",
			wantDistances: map[string]int{"a": 6, "b": 2, "c": 5, "d": 2},
			wantFilters:   map[string]Filter{"a": FilterMinimalDistance, "c": FilterMinimalDistance, "d": FilterLeastUsed},
		},
		{
			name:          "no orientation on either side costs nothing, on one side 1",
			seeds:         seeds(coretest.MakeSeed("a").Provider("aws", "local").Obj(), coretest.MakeSeed("b").Provider("aws", "eu-west-1").Obj()),
			shoot:         coretest.MakeShoot("garden-dev", "s").Provider("aws", "local").Obj(),
			config:        Config{Strategy: StrategyMinimalDistance},
			want:          "a",
			wantDistances: map[string]int{"a": 0, "b": 2*6 + 1}, // local -> eu-:-1: 6 edits
		},
		{
			name:  "provider differs adds 2",
			seeds: seeds(coretest.MakeSeed("gcp").Provider("gcp", "eu-west-1").Obj(), coretest.MakeSeed("aws").Provider("aws", "us-west-1").Obj()),
			shoot: coretest.MakeShoot("garden-dev", "s").Obj(),
			mutateProfile: func(p *v1alpha1.CloudProfile) {
				p.Spec.SeedSelector = &v1alpha1.SeedSelector{ProviderTypes: []string{"*"}}
			},
			config:        Config{Strategy: StrategyMinimalDistance},
			want:          "gcp",
			wantDistances: map[string]int{"gcp": 2, "aws": 4},
		},
		{
			name:        "ties go to the least used, then the name",
			seeds:       seeds(coretest.MakeSeed("c").Obj(), coretest.MakeSeed("b").Obj(), coretest.MakeSeed("a").Obj()),
			bound:       fill("a", 1),
			shoot:       coretest.MakeShoot("garden-dev", "s").Obj(),
			want:        "b",
			wantFilters: map[string]Filter{"a": FilterLeastUsed, "c": FilterLeastUsed},
		},
		{
			name:      "a malformed entry fails the shoot that needs it",
			seeds:     seeds(coretest.MakeSeed("a").Obj()),
			shoot:     coretest.MakeShoot("garden-dev", "s").Obj(),
			cm:        cm(map[string]string{"eu-west-1": "eu-central-1: near\n"}),
			config:    Config{Strategy: StrategyMinimalDistance},
			wantErr:   []string{`region ConfigMap garden/aws-regions: data["eu-west-1"]["eu-central-1"] = near is not an integer distance`},
			wantOther: true,
		},
		{
			name:   "a malformed entry of another region does not matter",
			seeds:  seeds(coretest.MakeSeed("a").Obj()),
			shoot:  coretest.MakeShoot("garden-dev", "s").Obj(),
			cm:     cm(map[string]string{"eu-west-1": "eu-west-1: 0\n", "us-east-1": "[not a map"}),
			config: Config{Strategy: StrategyMinimalDistance},
			want:   "a",
		},
		{
			name:  "a malformed entry does not matter to SameRegion",
			seeds: seeds(coretest.MakeSeed("a").Obj()),
			shoot: coretest.MakeShoot("garden-dev", "s").Obj(),
			cm:    cm(map[string]string{"eu-west-1": "- x"}),
			want:  "a",
		},
	} {
		t.Run(tc.name, tc.run)
	}
}

func TestScoring(t *testing.T) {
	for _, tc := range []scheduleCase{
		{
			name:        "LeastAllocated prefers the lower utilisation, not the lower count",
			seeds:       seeds(coretest.MakeSeed("big").Allocatable(100).Obj(), coretest.MakeSeed("small").Allocatable(4).Obj()),
			bound:       append(fill("big", 10), fill("small", 2)...),
			shoot:       coretest.MakeShoot("garden-dev", "s").Obj(),
			config:      Config{ScoreWeights: map[ScorePlugin]int32{ScorePluginLeastAllocated: 1}},
			want:        "big",
			wantFilters: map[string]Filter{"small": FilterScore},
		},
		{
			name:  "MinimalDistance and LeastAllocated weighed",
			seeds: seeds(coretest.MakeSeed("near").Provider("aws", "eu-west-2").Allocatable(10).Obj(), coretest.MakeSeed("far").Provider("aws", "us-east-1").Allocatable(10).Obj()),
			bound: fill("near", 9),
			shoot: coretest.MakeShoot("garden-dev", "s").Obj(),
			config: Config{Strategy: StrategyMinimalDistance, ScoreWeights: map[ScorePlugin]int32{
				ScorePluginMinimalDistance: 1, ScorePluginLeastAllocated: 3}},
			want: "far",
		},
		{
			name:  "MinimalDistance weighed heavier keeps the near seed",
			seeds: seeds(coretest.MakeSeed("near").Provider("aws", "eu-west-2").Allocatable(10).Obj(), coretest.MakeSeed("far").Provider("aws", "us-east-1").Allocatable(10).Obj()),
			bound: fill("near", 5),
			shoot: coretest.MakeShoot("garden-dev", "s").Obj(),
			config: Config{Strategy: StrategyMinimalDistance, ScoreWeights: map[ScorePlugin]int32{
				ScorePluginMinimalDistance: 3, ScorePluginLeastAllocated: 1}},
			want: "near",
		},
		{
			name:   "PreferNoSchedule as a score can be outweighed",
			seeds:  seeds(coretest.MakeSeed("soft").Taint("soft", nil, v1alpha1.TaintEffectPreferNoSchedule).Allocatable(10).Obj(), coretest.MakeSeed("busy").Allocatable(10).Obj()),
			bound:  fill("busy", 9),
			shoot:  coretest.MakeShoot("garden-dev", "s").Obj(),
			config: Config{ScoreWeights: map[ScorePlugin]int32{ScorePluginPreferNoSchedule: 1, ScorePluginLeastAllocated: 2}},
			want:   "soft",
		},
		{
			name:   "without the PreferNoSchedule plugin the taint still sets the seed aside",
			seeds:  seeds(coretest.MakeSeed("soft").Taint("soft", nil, v1alpha1.TaintEffectPreferNoSchedule).Allocatable(10).Obj(), coretest.MakeSeed("busy").Allocatable(10).Obj()),
			bound:  fill("busy", 9),
			shoot:  coretest.MakeShoot("garden-dev", "s").Obj(),
			config: Config{ScoreWeights: map[ScorePlugin]int32{ScorePluginLeastAllocated: 2}},
			want:   "busy",
		},
		{
			name:        "LeastAllocated without allocatable compares usage",
			seeds:       seeds(coretest.MakeSeed("a").Obj(), coretest.MakeSeed("b").Obj(), coretest.MakeSeed("c").Allocatable(4).Obj()),
			bound:       append(append(fill("a", 3), fill("b", 1)...), fill("c", 3)...),
			shoot:       coretest.MakeShoot("garden-dev", "s").Obj(),
			config:      Config{ScoreWeights: map[ScorePlugin]int32{ScorePluginLeastAllocated: 1}},
			want:        "b",
			wantFilters: map[string]Filter{"a": FilterScore, "c": FilterScore},
		},
		{
			name:   "equal scores: least used, then name",
			seeds:  seeds(coretest.MakeSeed("b").Obj(), coretest.MakeSeed("a").Obj(), coretest.MakeSeed("c").Obj()),
			bound:  fill("a", 1),
			shoot:  coretest.MakeShoot("garden-dev", "s").Obj(),
			config: Config{ScoreWeights: map[ScorePlugin]int32{ScorePluginPreferNoSchedule: 1}},
			want:   "b",
		},
		{
			name:      "bad configuration",
			seeds:     seeds(coretest.MakeSeed("a").Obj()),
			shoot:     coretest.MakeShoot("garden-dev", "s").Obj(),
			config:    Config{Strategy: "Closest", ScoreWeights: map[ScorePlugin]int32{"Magic": 1, ScorePluginLeastAllocated: -1}},
			wantErr:   []string{`unknown strategy "Closest"`, `unknown score plugin "Magic"`, "negative weight -1"},
			wantOther: true,
		},
	} {
		t.Run(tc.name, tc.run)
	}
}

func TestMissingCloudProfile(t *testing.T) {
	_, err := Schedule(coretest.MakeShoot("garden-dev", "s").Obj(), snapshotOf(seeds(coretest.MakeSeed("a").Obj())), Inputs{})
	if err == nil || !strings.Contains(err.Error(), `cloud profile "aws" of shoot garden-dev/s is not known`) {
		t.Fatalf("err = %v", err)
	}
}

func TestShortReason(t *testing.T) {
	snap := snapshotOf(seeds(coretest.MakeSeed("a").Allocatable(0).Obj(), coretest.MakeSeed("b").Allocatable(0).Obj(), coretest.MakeSeed("c").Taint("x", nil, "").Obj()))
	_, err := Schedule(coretest.MakeShoot("garden-dev", "s").Obj(), snap, Inputs{CloudProfile: coretest.MakeCloudProfile("aws").Obj()})
	if got, want := ShortReason(err), "0/3 seeds fit: no capacity (2), taints not tolerated (1)"; got != want {
		t.Errorf("ShortReason = %q, want %q", got, want)
	}
	var se *ScheduleError
	if !asScheduleError(err, &se) || se.Filter != FilterCapacity {
		t.Errorf("Filter = %v", se)
	}
	if e := Explain(coretest.MakeShoot("garden-dev", "s").Obj(), snap, Inputs{CloudProfile: coretest.MakeCloudProfile("aws").Obj()}); e.Short() != ShortReason(err) {
		t.Errorf("Explain short %q", e.Short())
	}
}

func asScheduleError(err error, target **ScheduleError) bool {
	se, ok := err.(*ScheduleError)
	*target = se
	return ok
}
