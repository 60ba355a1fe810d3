package algorithm

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/coretest"
)

// FuzzSchedule builds random landscapes from the fuzzer's numbers and checks
// that nothing panics, that a chosen seed passes every filter (checked here
// independently of the implementation), that a ScheduleError means no seed
// passes them all, and that Explain agrees with Schedule.
func FuzzSchedule(f *testing.F) {
	for i := range uint64(16) {
		f.Add(i, i*7919+1)
	}
	f.Fuzz(func(t *testing.T, a, b uint64) {
		rng := rand.New(rand.NewPCG(a, b))
		pick := func(n int) int { return rng.IntN(n) }
		providers := []string{"aws", "gcp", "azure"}
		regions := []string{"eu-west-1", "eu-east-1", "eu-1", "us-west-2", "local", ""}
		cidrs4 := []string{"10.0.0.0/16", "10.0.0.0/8", "10.1.0.0/16", "100.64.0.0/13", "100.96.0.0/11", "192.168.0.0/24", "not-a-cidr", ""}
		cidrs6 := []string{"fd00::/48", "fd00:0:0:1::/64", "2001:db8::/32", "fd00::/8"}
		cidr := func() string {
			switch pick(4) {
			case 0:
				return cidrs6[pick(len(cidrs6))]
			case 1:
				return cidrs4[pick(len(cidrs4))] + "," + cidrs6[pick(len(cidrs6))]
			}
			return cidrs4[pick(len(cidrs4))]
		}
		optional := func(s string) *string {
			if pick(3) == 0 {
				return nil
			}
			return &s
		}
		keys := []string{"a", "b"}
		values := []*string{nil, ptr.To("v"), ptr.To("w"), ptr.To("")}
		effects := []v1alpha1.TaintEffect{"", v1alpha1.TaintEffectNoSchedule, v1alpha1.TaintEffectPreferNoSchedule, v1alpha1.TaintEffectNoExecute}

		snap := NewSnapshot()
		var all []*v1alpha1.Seed
		for i := range pick(8) {
			s := coretest.MakeSeed(fmt.Sprintf("seed-%d", i)).Provider(providers[pick(3)], regions[pick(len(regions))]).Obj()
			s.Labels["env"] = []string{"prod", "dev"}[pick(2)]
			s.Spec.Provider.Zones = s.Spec.Provider.Zones[:pick(4)]
			s.Spec.Networks.Nodes = optional(cidr())
			s.Spec.Networks.Pods, s.Spec.Networks.Services = cidr(), cidr()
			if pick(2) == 0 {
				s.Spec.Networks.ShootDefaults = &v1alpha1.ShootNetworks{Pods: optional(cidr()), Services: optional(cidr())}
			}
			for range pick(3) {
				s.Spec.Taints = append(s.Spec.Taints, v1alpha1.SeedTaint{Key: keys[pick(2)], Value: values[pick(len(values))], Effect: effects[pick(len(effects))]})
			}
			if pick(2) == 0 {
				s.Status.Allocatable = nil
				coretest.WrapSeed(s).Allocatable(int64(pick(4)))
			}
			switch pick(8) {
			case 0:
				s.DeletionTimestamp = &metav1.Time{}
			case 1:
				s.Status.Conditions[0].Status = v1alpha1.ConditionFalse
			case 2:
				s.Spec.Backup = &v1alpha1.SeedBackup{}
				s.Status.Conditions[1].Status = v1alpha1.ConditionUnknown
			case 3:
				s.Spec.Settings = &v1alpha1.SeedSettings{Scheduling: &v1alpha1.SeedSettingScheduling{Visible: false}}
			}
			all = append(all, s)
			snap.AddSeed(s)
		}
		for i := range pick(12) {
			sh := coretest.MakeShoot("garden-dev", fmt.Sprintf("bound-%d", i)).Obj()
			if len(all) > 0 {
				coretest.WrapShoot(sh).Seed(all[pick(len(all))].Name)
				if pick(4) == 0 {
					sh.Status.SeedName = ptr.To(all[pick(len(all))].Name)
				}
			}
			snap.AddShoot(sh)
		}

		shoot := coretest.MakeShoot("garden-dev", "s").Provider(providers[pick(3)], regions[pick(len(regions))]).Obj()
		shoot.Spec.Networking = &v1alpha1.Networking{Nodes: optional(cidrs4[pick(len(cidrs4)-2)]), Pods: optional(cidr()), Services: optional(cidr())}
		if pick(3) == 0 {
			shoot.Spec.Networking.IPFamilies = [][]v1alpha1.IPFamily{{v1alpha1.IPFamilyIPv6}, {v1alpha1.IPFamilyIPv4, v1alpha1.IPFamilyIPv6}}[pick(2)]
		}
		for range pick(3) {
			tol := v1alpha1.Toleration{Key: keys[pick(2)], Value: values[pick(len(values))], Effect: effects[pick(len(effects))]}
			shoot.Spec.Tolerations = append(shoot.Spec.Tolerations, tol)
		}
		if pick(3) == 0 {
			coretest.WrapShoot(shoot).Purpose(v1alpha1.ShootPurposeTesting)
		}
		if pick(3) == 0 {
			shoot.Spec.ControlPlane = &v1alpha1.ControlPlane{HighAvailability: &v1alpha1.HighAvailability{FailureTolerance: v1alpha1.FailureTolerance{Type: v1alpha1.FailureToleranceTypeZone}}}
		}
		selectors := []*v1alpha1.SeedSelector{
			nil,
			{LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}},
			{LabelSelector: metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "env", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"prod"}}}}},
			{ProviderTypes: []string{"*"}},
			{ProviderTypes: []string{"gcp", "azure"}},
			{LabelSelector: metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "env", Operator: "Near"}}}},
		}
		shoot.Spec.SeedSelector = selectors[pick(len(selectors))]
		if pick(3) == 0 && len(all) > 0 {
			// The shoot itself may already be counted (evicted, or migrating).
			shoot.Status.SeedName = ptr.To(all[pick(len(all))].Name)
			snap.AddShoot(shoot)
		}
		profile := coretest.MakeCloudProfile("aws").Obj()
		// Admission keeps the shoot's provider type the profile's.
		profile.Spec.Type = shoot.Spec.Provider.Type
		profile.Spec.SeedSelector = selectors[pick(len(selectors))]
		config := Config{Strategy: []Strategy{StrategySameRegion, StrategyMinimalDistance, ""}[pick(3)]}
		if pick(3) == 0 {
			config.ScoreWeights = map[ScorePlugin]int32{}
			for _, p := range ScorePlugins() {
				config.ScoreWeights[p] = int32(pick(3))
			}
		}
		in := Inputs{CloudProfile: profile, Config: config}
		if pick(2) == 0 {
			in.RegionConfigMap = coretest.RegionConfigMap("garden", "regions", "aws", map[string]string{
				shoot.Spec.Region: []string{"eu-west-1: 3\nus-west-2: 1\n", "local: 0\n", "bad", "eu-1: -4\n"}[pick(4)],
			})
		}
		// Drawn last, so that the landscapes above stay those of the corpus.
		if pick(3) == 0 {
			// Evicted: from one of the seeds, or from one gone since.
			from := "gone"
			if len(all) > 0 && pick(4) > 0 {
				from = all[pick(len(all))].Name
			}
			shoot.Annotations = map[string]string{v1alpha1.AnnotationDescheduledFrom: from}
			for i := range shoot.Spec.Tolerations {
				if pick(2) == 0 {
					shoot.Spec.Tolerations[i].TolerationSeconds = ptr.To(int64(pick(600)))
				}
			}
		}

		// Gardener's seed offerings, drawn after everything else.
		zoneNames := []string{"a", "b", "c", "d"}
		for _, s := range all {
			if m := []v1alpha1.ZoneSelectionMode{"", v1alpha1.ZoneSelectionModePrefer, v1alpha1.ZoneSelectionModeEnforce}[pick(3)]; m != "" {
				if s.Spec.Settings == nil {
					s.Spec.Settings = &v1alpha1.SeedSettings{}
				}
				s.Spec.Settings.ZoneSelection = &v1alpha1.SeedSettingZoneSelection{Mode: m}
			}
			for _, r := range []string{"eu-access-only", "sovereign"} {
				if pick(2) == 0 {
					s.Spec.AccessRestrictions = append(s.Spec.AccessRestrictions, v1alpha1.AccessRestriction{Name: r})
				}
			}
			for _, d := range []string{"a.example.com", "b.example.com"} {
				if pick(3) == 0 {
					s.Spec.DNS.Defaults = append(s.Spec.DNS.Defaults, v1alpha1.SeedDNSDefault{Domain: d})
				}
			}
			switch pick(6) {
			case 0:
				s.Annotations = map[string]string{v1alpha1.AnnotationEmergencyStopShootReconciliations: "true"}
			case 1:
				s.Annotations = map[string]string{v1alpha1.AnnotationEmergencyStopShootReconciliations: "yes"}
			}
		}
		for _, s := range all {
			// Seeds are read when they enter the snapshot.
			snap.AddSeed(s)
		}
		for i := range pick(3) {
			w := v1alpha1.Worker{Name: fmt.Sprintf("pool-%d", i)}
			for range pick(3) {
				w.Zones = append(w.Zones, zoneNames[pick(len(zoneNames))])
			}
			shoot.Spec.Provider.Workers = append(shoot.Spec.Provider.Workers, w)
		}
		for _, r := range []string{"eu-access-only", "sovereign"} {
			if pick(3) == 0 {
				shoot.Spec.AccessRestrictions = append(shoot.Spec.AccessRestrictions, v1alpha1.AccessRestrictionWithOptions{AccessRestriction: v1alpha1.AccessRestriction{Name: r}})
			}
		}
		if pick(3) == 0 {
			shoot.Spec.DNS = &v1alpha1.DNS{Domain: ptr.To([]string{"s.dev.a.example.com", "s.other.a.example.com", "s.dev.b.example.com", "my.own.domain"}[pick(4)])}
		}
		project := ProjectOf(shoot.Namespace)

		chosen, err := Schedule(shoot, snap, in)
		explanation := Explain(shoot, snap, in)
		if (err == nil) != (explanation.Err == nil) || chosen != explanation.Seed {
			t.Fatalf("Explain (%q, %v) disagrees with Schedule (%q, %v)", explanation.Seed, explanation.Err, chosen, err)
		}
		var staying []string
		passing := independentPassing(shoot, all, snap, profile, config, project)
		for _, name := range passing {
			if !limitedStay(shoot, mustSeed(snap, name)) {
				staying = append(staying, name)
			}
		}
		var se *ScheduleError
		switch {
		case err == nil:
			if !slices.Contains(passing, chosen) {
				t.Fatalf("chose %s, which fails a filter (passing: %v): early %q, late %q", chosen, passing,
					independentEarly(shoot, mustSeed(snap, chosen), profile), independentLate(shoot, mustSeed(snap, chosen), snap, config))
			}
			// An evicted shoot: a seed it may stay on only for a while only
			// when every passing seed is one.
			evicted := shoot.Annotations[v1alpha1.AnnotationDescheduledFrom] != ""
			if evicted && limitedStay(shoot, mustSeed(snap, chosen)) && len(staying) > 0 {
				t.Fatalf("placed the evicted shoot on %s, which it tolerates only for a while, although it may stay on %v", chosen, staying)
			}
			considered := passing
			if evicted && len(staying) > 0 {
				considered = staying
			}
			// PreferNoSchedule: a softly tainted seed only when every such seed is.
			if config.ScoreWeights[ScorePluginPreferNoSchedule] == 0 && softlyRepelled(shoot, mustSeed(snap, chosen)) {
				for _, name := range considered {
					if !softlyRepelled(shoot, mustSeed(snap, name)) {
						t.Fatalf("chose %s with an untolerated PreferNoSchedule taint although %s has none", chosen, name)
					}
				}
			}
		case errors.As(err, &se):
			if len(passing) > 0 {
				t.Fatalf("no seed chosen although %v pass every filter: %v", passing, err)
			}
			if len(se.Rejections) != len(all) || (len(all) > 0 && !strings.Contains(err.Error(), "=>")) {
				t.Fatalf("error does not explain every seed: %v", err)
			}
			_ = se.Short()
		default:
			// Input errors: only bad selectors, shoot CIDRs and region entries cause them.
			msg := err.Error()
			if !strings.Contains(msg, "label selector") && !strings.Contains(msg, "not a CIDR") && !strings.Contains(msg, "region ConfigMap") {
				t.Fatalf("unexpected error: %v", err)
			}
		}
	})
}

func mustSeed(snap *Snapshot, name string) *v1alpha1.Seed {
	s, ok := snap.Seed(name)
	if !ok {
		panic("chosen seed " + name + " is not in the snapshot")
	}
	return s
}

// independentPassing restates, plainly and without the implementation's
// precomputation, Gardener's filter chain: the per-seed filters up to zone
// selection, the steps that look at the seeds left (zone preference, the
// default domain), then the per-seed rest; it returns the seeds that pass.
func independentPassing(shoot *v1alpha1.Shoot, all []*v1alpha1.Seed, snap *Snapshot, profile *v1alpha1.CloudProfile, config Config, project string) []string {
	var left []*v1alpha1.Seed
	for _, s := range all {
		if independentEarly(shoot, s, profile) == "" {
			left = append(left, s)
		}
	}
	filter := func(keep func(*v1alpha1.Seed) bool) []*v1alpha1.Seed {
		var out []*v1alpha1.Seed
		for _, s := range left {
			if keep(s) {
				out = append(out, s)
			}
		}
		return out
	}
	haZone := shoot.Spec.ControlPlane != nil && shoot.Spec.ControlPlane.HighAvailability != nil &&
		shoot.Spec.ControlPlane.HighAvailability.FailureTolerance.Type == v1alpha1.FailureToleranceTypeZone
	zones := map[string]bool{}
	for _, w := range shoot.Spec.Provider.Workers {
		for _, z := range w.Zones {
			zones[z] = true
		}
	}
	overlaps := func(s *v1alpha1.Seed) bool {
		for _, z := range s.Spec.Provider.Zones {
			if zones[z] {
				return true
			}
		}
		return false
	}
	mode := func(s *v1alpha1.Seed) v1alpha1.ZoneSelectionMode {
		if s.Spec.Settings == nil || s.Spec.Settings.ZoneSelection == nil {
			return ""
		}
		return s.Spec.Settings.ZoneSelection.Mode
	}
	if !haZone {
		left = filter(func(s *v1alpha1.Seed) bool {
			return mode(s) != v1alpha1.ZoneSelectionModeEnforce || len(zones) == 0 || overlaps(s)
		})
		if len(zones) > 0 {
			if preferred := filter(func(s *v1alpha1.Seed) bool { return mode(s) != v1alpha1.ZoneSelectionModePrefer || overlaps(s) }); len(preferred) > 0 {
				left = preferred
			}
		}
	}
	left = filter(func(s *v1alpha1.Seed) bool {
		offered := map[string]bool{}
		for _, a := range s.Spec.AccessRestrictions {
			offered[a.Name] = true
		}
		if len(shoot.Spec.AccessRestrictions) > len(s.Spec.AccessRestrictions) {
			return false
		}
		for _, a := range shoot.Spec.AccessRestrictions {
			if !offered[a.Name] {
				return false
			}
		}
		return true
	})
	if shoot.Spec.DNS != nil && shoot.Spec.DNS.Domain != nil {
		domain := *shoot.Spec.DNS.Domain
		under := false
		for _, s := range left {
			for _, d := range s.Spec.DNS.Defaults {
				under = under || strings.HasSuffix(domain, "."+d.Domain)
			}
		}
		if under {
			left = filter(func(s *v1alpha1.Seed) bool {
				for _, d := range s.Spec.DNS.Defaults {
					if domain == shoot.Name+"."+project+"."+d.Domain {
						return true
					}
				}
				return false
			})
		}
	}
	left = filter(func(s *v1alpha1.Seed) bool {
		return s.Annotations[v1alpha1.AnnotationEmergencyStopShootReconciliations] != "true"
	})
	var passing []string
	for _, s := range left {
		if independentLate(shoot, s, snap, config) == "" {
			passing = append(passing, s.Name)
		}
	}
	return passing
}

// independentEarly restates the per-seed filters before zone selection; ""
// means the seed passes them.
func independentEarly(shoot *v1alpha1.Shoot, seed *v1alpha1.Seed, profile *v1alpha1.CloudProfile) string {
	cond := func(t v1alpha1.ConditionType) bool {
		for _, c := range seed.Status.Conditions {
			if c.Type == t {
				return c.Status == v1alpha1.ConditionTrue
			}
		}
		return false
	}
	if seed.DeletionTimestamp != nil || (seed.Spec.Settings != nil && seed.Spec.Settings.Scheduling != nil && !seed.Spec.Settings.Scheduling.Visible) ||
		seed.Status.LastOperation == nil || !cond(v1alpha1.SeedGardenletReady) || (seed.Spec.Backup != nil && !cond(v1alpha1.SeedBackupBucketsReady)) {
		return "unusable"
	}
	for _, sel := range []*v1alpha1.SeedSelector{profile.Spec.SeedSelector, shoot.Spec.SeedSelector} {
		if sel == nil {
			continue
		}
		s, err := metav1.LabelSelectorAsSelector(&sel.LabelSelector)
		if err != nil || !s.Matches(labels.Set(seed.Labels)) {
			return "selector"
		}
	}
	var lists [][]string
	// Only the cloud profile's list steers the decision, as in Gardener.
	if sel := profile.Spec.SeedSelector; sel != nil && len(sel.ProviderTypes) > 0 {
		lists = append(lists, sel.ProviderTypes)
	}
	if len(lists) == 0 && seed.Spec.Provider.Type != shoot.Spec.Provider.Type {
		return "provider"
	}
	for _, l := range lists {
		ok := false
		for _, p := range l {
			ok = ok || p == "*" || p == seed.Spec.Provider.Type
		}
		if !ok {
			return "provider list"
		}
	}
	if shoot.Spec.ControlPlane != nil && shoot.Spec.ControlPlane.HighAvailability != nil &&
		shoot.Spec.ControlPlane.HighAvailability.FailureTolerance.Type == v1alpha1.FailureToleranceTypeZone && len(seed.Spec.Provider.Zones) < 3 {
		return "zones"
	}
	return ""
}

// independentLate restates the candidate step (networks, taints, capacity)
// and the strategy's region rule; "" means the seed passes them.
func independentLate(shoot *v1alpha1.Shoot, seed *v1alpha1.Seed, snap *Snapshot, config Config) string {
	if reason := independentNetworks(shoot, seed); reason != "" {
		return reason
	}
	for _, taint := range seed.Spec.Taints {
		effect := taint.Effect
		if effect == "" {
			effect = v1alpha1.TaintEffectNoSchedule
		}
		if effect == v1alpha1.TaintEffectPreferNoSchedule {
			continue
		}
		tolerated := false
		for _, tol := range shoot.Spec.Tolerations {
			tolValue := ""
			if tol.Value != nil {
				tolValue = *tol.Value
			}
			if tol.Key == taint.Key && (taint.Value == nil || *taint.Value == tolValue) && (tol.Effect == "" || tol.Effect == effect) {
				tolerated = true
			}
		}
		if !tolerated {
			return "taint " + taint.Key
		}
	}
	if shoot.Annotations[v1alpha1.AnnotationDescheduledFrom] == seed.Name && limitedStay(shoot, seed) {
		return "back to the seed it was evicted from"
	}
	if q, ok := seed.Status.Allocatable[v1alpha1.ResourceShoots]; ok {
		usage := snap.Usage(seed.Name)
		for _, counted := range snap.CountedOn(ShootKey(shoot)) {
			if counted == seed.Name {
				usage--
			}
		}
		if int64(usage) >= q.Value() {
			return "capacity"
		}
	}
	sameType := seed.Spec.Provider.Type == shoot.Spec.Provider.Type
	switch {
	case shoot.Spec.Purpose != nil && *shoot.Spec.Purpose == v1alpha1.ShootPurposeTesting:
		if !sameType {
			return "testing needs the provider type"
		}
	case config.Strategy != StrategyMinimalDistance:
		if !sameType || seed.Spec.Provider.Region != shoot.Spec.Region {
			return "same region"
		}
	}
	return ""
}

func independentNetworks(shoot *v1alpha1.Shoot, seed *v1alpha1.Seed) string {
	parse := func(s string) ([]netip.Prefix, bool) {
		var out []netip.Prefix
		for _, part := range strings.Split(s, ",") {
			if part == "" {
				continue
			}
			p, err := netip.ParsePrefix(part)
			if err != nil {
				return nil, false
			}
			out = append(out, p)
		}
		return out, true
	}
	var seedNets []netip.Prefix
	for _, s := range []*string{seed.Spec.Networks.Nodes, &seed.Spec.Networks.Pods, &seed.Spec.Networks.Services} {
		if s == nil {
			continue
		}
		p, ok := parse(*s)
		if !ok {
			return "seed network unparsable"
		}
		seedNets = append(seedNets, p...)
	}
	n := shoot.Spec.Networking
	v4, v6 := len(n.IPFamilies) == 0, false
	for _, f := range n.IPFamilies {
		v4 = v4 || f == v1alpha1.IPFamilyIPv4
		v6 = v6 || f == v1alpha1.IPFamilyIPv6
	}
	var shootNets []netip.Prefix
	add := func(own *string, def func() *string) string {
		if own != nil && *own != "" {
			p, ok := parse(*own)
			if !ok {
				return "shoot network unparsable"
			}
			shootNets = append(shootNets, p...)
			return ""
		}
		if seed.Spec.Networks.ShootDefaults == nil || def() == nil {
			return ""
		}
		p, ok := parse(*def())
		if !ok {
			return "seed default unparsable"
		}
		for _, d := range p {
			if (d.Addr().Is4() && v4) || (d.Addr().Is6() && v6) {
				shootNets = append(shootNets, d)
			}
		}
		return ""
	}
	if n.Nodes != nil {
		p, ok := parse(*n.Nodes)
		if !ok {
			return "shoot nodes unparsable"
		}
		shootNets = append(shootNets, p...)
	}
	if r := add(n.Pods, func() *string { return seed.Spec.Networks.ShootDefaults.Pods }); r != "" {
		return r
	}
	if r := add(n.Services, func() *string { return seed.Spec.Networks.ShootDefaults.Services }); r != "" {
		return r
	}
	for _, a := range shootNets {
		for _, b := range seedNets {
			if a.Overlaps(b) {
				return "networks " + a.String() + " " + b.String()
			}
		}
	}
	return ""
}

// limitedStay restates LimitedNoExecuteTaints: some NoExecute taint of the
// seed is matched only by tolerations with tolerationSeconds.
func limitedStay(shoot *v1alpha1.Shoot, seed *v1alpha1.Seed) bool {
	for _, taint := range seed.Spec.Taints {
		if taint.Effect != v1alpha1.TaintEffectNoExecute {
			continue
		}
		matched, forever := false, false
		for _, tol := range shoot.Spec.Tolerations {
			tolValue := ""
			if tol.Value != nil {
				tolValue = *tol.Value
			}
			if tol.Key == taint.Key && (taint.Value == nil || *taint.Value == tolValue) && (tol.Effect == "" || tol.Effect == taint.Effect) {
				matched = true
				forever = forever || tol.TolerationSeconds == nil
			}
		}
		if matched && !forever {
			return true
		}
	}
	return false
}

func softlyRepelled(shoot *v1alpha1.Shoot, seed *v1alpha1.Seed) bool {
	return len(UntoleratedTaints(seed.Spec.Taints, shoot.Spec.Tolerations, v1alpha1.TaintEffectPreferNoSchedule)) > 0
}
