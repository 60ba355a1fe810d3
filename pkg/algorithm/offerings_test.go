package algorithm

import (
	"strings"
	"testing"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

func zoneMode(m v1alpha1.ZoneSelectionMode, zones ...string) seedOpt {
	return func(s *v1alpha1.Seed) {
		s.Spec.Settings = &v1alpha1.SeedSettings{ZoneSelection: &v1alpha1.SeedSettingZoneSelection{Mode: m}}
		s.Spec.Provider.Zones = zones
	}
}

func offers(restrictions ...string) seedOpt {
	return func(s *v1alpha1.Seed) {
		for _, r := range restrictions {
			s.Spec.AccessRestrictions = append(s.Spec.AccessRestrictions, v1alpha1.AccessRestriction{Name: r})
		}
	}
}

func defaultDomains(domains ...string) seedOpt {
	return func(s *v1alpha1.Seed) {
		for _, d := range domains {
			s.Spec.DNS.Defaults = append(s.Spec.DNS.Defaults, v1alpha1.SeedDNSDefault{Type: "local", Domain: d})
		}
	}
}

func annotated(k, v string) seedOpt {
	return func(s *v1alpha1.Seed) { s.Annotations = map[string]string{k: v} }
}

func workers(zones ...[]string) shootOpt {
	return func(s *v1alpha1.Shoot) {
		for i, z := range zones {
			s.Spec.Provider.Workers = append(s.Spec.Provider.Workers, v1alpha1.Worker{Name: "pool-" + string(rune('a'+i)), Zones: z})
		}
	}
}

func needs(restrictions ...string) shootOpt {
	return func(s *v1alpha1.Shoot) {
		for _, r := range restrictions {
			s.Spec.AccessRestrictions = append(s.Spec.AccessRestrictions, v1alpha1.AccessRestrictionWithOptions{AccessRestriction: v1alpha1.AccessRestriction{Name: r}})
		}
	}
}

func domain(d string) shootOpt {
	return func(s *v1alpha1.Shoot) { s.Spec.DNS = &v1alpha1.DNS{Domain: &d} }
}

func zonalHA(s *v1alpha1.Shoot) {
	s.Spec.ControlPlane = &v1alpha1.ControlPlane{HighAvailability: &v1alpha1.HighAvailability{FailureTolerance: v1alpha1.FailureTolerance{Type: v1alpha1.FailureToleranceTypeZone}}}
}

// offeringCase is one decision: the seed expected (or "" for none), and for
// each seed named in reasons the filter and a part of the message that
// rejected it.
type offeringCase struct {
	name    string
	seeds   []*v1alpha1.Seed
	shoot   *v1alpha1.Shoot
	project string
	want    string
	reasons map[string][2]string
	// headline is a part of the error's headline when no seed is chosen.
	headline string
}

func runOfferingCases(t *testing.T, cases []offeringCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			snap := snapshotOf(tc.seeds)
			in := Inputs{CloudProfile: cloudProfile("aws"), Project: tc.project}
			got, err := Schedule(tc.shoot, snap, in)
			if got != tc.want {
				t.Fatalf("chose %q (%v), want %q", got, err, tc.want)
			}
			if tc.headline != "" && (err == nil || !strings.Contains(err.Error(), tc.headline)) {
				t.Errorf("error %v does not say %q", err, tc.headline)
			}
			e := Explain(tc.shoot, snap, in)
			for seed, want := range tc.reasons {
				found := false
				for _, r := range e.Seeds {
					if r.Seed != seed {
						continue
					}
					found = true
					if string(r.Filter) != want[0] || !strings.Contains(r.Message, want[1]) {
						t.Errorf("seed %s: %s: %s, want %s saying %q", seed, r.Filter, r.Message, want[0], want[1])
					}
				}
				if !found {
					t.Errorf("seed %s not explained", seed)
				}
			}
		})
	}
}

func TestZoneSelection(t *testing.T) {
	enforce, prefer := v1alpha1.ZoneSelectionModeEnforce, v1alpha1.ZoneSelectionModePrefer
	runOfferingCases(t, []offeringCase{{
		name:  "Enforce keeps a seed sharing no zone off",
		seeds: []*v1alpha1.Seed{newSeed("a-enforce", zoneMode(enforce, "x", "y")), newSeed("b-enforce", zoneMode(enforce, "a", "b"))},
		shoot: newShoot("s", workers([]string{"b"}, []string{"z"})),
		want:  "b-enforce",
		reasons: map[string][2]string{"a-enforce": {string(FilterZoneSelection),
			"seed enforces zone selection and none of its zones [x y] is a zone of the shoot's worker pools [b z]"}},
	}, {
		name:     "Enforce with no seed sharing a zone fails",
		seeds:    []*v1alpha1.Seed{newSeed("a", zoneMode(enforce, "x")), newSeed("b", zoneMode(enforce, "y"))},
		shoot:    newShoot("s", workers([]string{"a"})),
		headline: "none of the 2 seeds has any zone overlap with the shoot's worker pool zones (zone selection mode: Enforce)",
	}, {
		name:  "Enforce does not apply to a shoot whose pools name no zone",
		seeds: []*v1alpha1.Seed{newSeed("a", zoneMode(enforce, "x"))},
		shoot: newShoot("s", workers(nil)),
		want:  "a",
	}, {
		name:  "a zonal HA control plane is exempt",
		seeds: []*v1alpha1.Seed{newSeed("a", zoneMode(enforce, "x", "y", "z"))},
		shoot: newShoot("s", workers([]string{"a"}), zonalHA),
		want:  "a",
	}, {
		name: "Prefer seeds sharing a zone win over Prefer seeds that do not",
		// a-prefer would win as the first name among equally used seeds.
		seeds: []*v1alpha1.Seed{newSeed("a-prefer", zoneMode(prefer, "x")), newSeed("b-prefer", zoneMode(prefer, "a"))},
		shoot: newShoot("s", workers([]string{"a"})),
		want:  "b-prefer",
		reasons: map[string][2]string{"a-prefer": {string(FilterZonePreference),
			"seed prefers worker pool zones and none of its zones [x] is one of the shoot's [a]"}},
	}, {
		name:  "a seed without zone selection also beats a Prefer seed sharing no zone",
		seeds: []*v1alpha1.Seed{newSeed("a-prefer", zoneMode(prefer, "x")), newSeed("b-plain")},
		shoot: newShoot("s", workers([]string{"a"})),
		want:  "b-plain",
	}, {
		name:  "Prefer seeds sharing no zone are the fallback when nothing else is left",
		seeds: []*v1alpha1.Seed{newSeed("a-prefer", zoneMode(prefer, "x")), newSeed("b-prefer", zoneMode(prefer, "y"))},
		shoot: newShoot("s", workers([]string{"a"})),
		want:  "a-prefer",
	}, {
		// The preference comes before the capacity check, as in Gardener:
		// the full seed sharing a zone still sets the other aside.
		name:  "the preference is decided before capacity",
		seeds: []*v1alpha1.Seed{newSeed("a-prefer", zoneMode(prefer, "x")), newSeed("b-prefer", zoneMode(prefer, "a"), allocatable(0))},
		shoot: newShoot("s", workers([]string{"a"})),
		want:  "",
	}})
}

func TestAccessRestrictions(t *testing.T) {
	runOfferingCases(t, []offeringCase{{
		name:  "an eu-access-only shoot goes only where it is offered",
		seeds: []*v1alpha1.Seed{newSeed("a-anywhere"), newSeed("b-eu", offers("eu-access-only"))},
		shoot: newShoot("s", needs("eu-access-only")),
		want:  "b-eu",
		reasons: map[string][2]string{"a-anywhere": {string(FilterAccessRestrictions),
			"seed does not offer access restriction eu-access-only"}},
	}, {
		name:  "every restriction must be offered",
		seeds: []*v1alpha1.Seed{newSeed("a-eu", offers("eu-access-only")), newSeed("b-both", offers("sovereign", "eu-access-only"))},
		shoot: newShoot("s", needs("eu-access-only", "sovereign")),
		want:  "b-both",
	}, {
		name:  "a shoot without restrictions may use a seed offering some",
		seeds: []*v1alpha1.Seed{newSeed("a-eu", offers("eu-access-only"))},
		shoot: newShoot("s"),
		want:  "a-eu",
	}, {
		name:     "none offered",
		seeds:    []*v1alpha1.Seed{newSeed("a"), newSeed("b", offers("sovereign"))},
		shoot:    newShoot("s", needs("eu-access-only")),
		headline: "none of the 2 seeds supports the access restrictions configured in the shoot specification",
	}, {
		name:  "a restriction named twice needs two offered, as in Gardener",
		seeds: []*v1alpha1.Seed{newSeed("a", offers("eu-access-only"))},
		shoot: newShoot("s", needs("eu-access-only", "eu-access-only")),
		reasons: map[string][2]string{"a": {string(FilterAccessRestrictions),
			"shoot asks for 2 access restrictions, more than the 1 the seed offers"}},
	}})
}

func TestDefaultDomains(t *testing.T) {
	runOfferingCases(t, []offeringCase{{
		name:  "a default domain goes to the seed that has it",
		seeds: []*v1alpha1.Seed{newSeed("a-other", defaultDomains("other.example")), newSeed("b-ours", defaultDomains("ours.example")), newSeed("c-none")},
		shoot: newShoot("s", domain("s.dev.ours.example")),
		want:  "b-ours",
		reasons: map[string][2]string{
			"a-other": {string(FilterDomain), `shoot domain "s.dev.ours.example" lies under a seed's default domain, and no default domain of this seed gives it`},
			"c-none":  {string(FilterDomain), "(project dev)"},
		},
	}, {
		name:  "a custom domain may go anywhere",
		seeds: []*v1alpha1.Seed{newSeed("a-other", defaultDomains("other.example")), newSeed("b-none")},
		shoot: newShoot("s", domain("api.my-company.example")),
		want:  "a-other",
	}, {
		name:     "under a default domain but not <shoot>.<project>.<domain>",
		seeds:    []*v1alpha1.Seed{newSeed("a", defaultDomains("ours.example")), newSeed("b")},
		shoot:    newShoot("s", domain("s.someone-else.ours.example")),
		headline: `none of the 2 seeds support the domain "s.someone-else.ours.example" configured in the shoot specification`,
	}, {
		name:    "the project comes from the inputs when known",
		seeds:   []*v1alpha1.Seed{newSeed("a", defaultDomains("ours.example"))},
		shoot:   newShoot("s", domain("s.team.ours.example")),
		project: "team",
		want:    "a",
	}, {
		// Only seeds still in the running decide whether the domain is a
		// default one: with the seed that has it rejected earlier, the
		// domain counts as the shoot's own.
		name:  "a default domain of a seed rejected earlier does not count",
		seeds: []*v1alpha1.Seed{newSeed("a-gcp", region("gcp", "eu-west-1"), defaultDomains("ours.example")), newSeed("b-none")},
		shoot: newShoot("s", domain("s.someone-else.ours.example")),
		want:  "b-none",
	}})
}

func TestEmergencyStop(t *testing.T) {
	key := v1alpha1.AnnotationEmergencyStopShootReconciliations
	runOfferingCases(t, []offeringCase{{
		name:  "a stopped seed takes no shoots",
		seeds: []*v1alpha1.Seed{newSeed("a-stopped", annotated(key, "true")), newSeed("b")},
		shoot: newShoot("s"),
		want:  "b",
		reasons: map[string][2]string{"a-stopped": {string(FilterEmergencyStop),
			"seed is annotated shoot.gardener.cloud/emergency-stop-reconciliations=true"}},
	}, {
		name:  "only the value true stops",
		seeds: []*v1alpha1.Seed{newSeed("a-malformed", annotated(key, "True")), newSeed("b-yes", annotated(key, "yes"))},
		shoot: newShoot("s"),
		want:  "a-malformed",
	}, {
		name:     "every seed stopped",
		seeds:    []*v1alpha1.Seed{newSeed("a", annotated(key, "true"))},
		shoot:    newShoot("s"),
		headline: "none of the 1 seeds have enabled shoot reconciliations currently",
	}})
}

func TestProjectOf(t *testing.T) {
	for ns, want := range map[string]string{"garden-dev": "dev", "garden": "garden", "garden-": "garden-", "team-a": "team-a"} {
		if got := ProjectOf(ns); got != want {
			t.Errorf("ProjectOf(%q) = %q, want %q", ns, got, want)
		}
	}
}

// TestNamespacedCloudProfileIsNotTakenForAClusterOne: a shoot naming a
// NamespacedCloudProfile is not decided with the cluster-wide profile of the
// same name, which is another profile.
func TestNamespacedCloudProfileIsNotTakenForAClusterOne(t *testing.T) {
	shoot := newShoot("s", func(s *v1alpha1.Shoot) {
		s.Spec.CloudProfile = &v1alpha1.CloudProfileReference{Kind: KindNamespacedCloudProfile, Name: "aws"}
	})
	_, err := Schedule(shoot, snapshotOf(seeds(newSeed("a"))), Inputs{CloudProfile: cloudProfile("aws")})
	if err == nil || !strings.Contains(err.Error(), "names NamespacedCloudProfile aws; graft places only shoots of cluster-wide CloudProfiles") {
		t.Fatalf("Schedule: %v, want a refusal naming the NamespacedCloudProfile", err)
	}
}

// TestProviderTypeMustBeTheProfiles: a shoot whose provider type is not its
// cloud profile's is not decided (graft-shoot-cloud-profile refuses it, but
// may be skipped right after an API server start), so that it cannot take
// another provider's seed selector.
func TestProviderTypeMustBeTheProfiles(t *testing.T) {
	borrowed := newShoot("s", shootRegion("gcp", "eu-west-1"))
	_, err := Schedule(borrowed, snapshotOf(seeds(newSeed("a", region("gcp", "eu-west-1")))), Inputs{CloudProfile: cloudProfile("aws")})
	if err == nil || !strings.Contains(err.Error(), `has provider type "gcp", but its cloud profile aws is of type "aws"`) {
		t.Fatalf("Schedule: %v, want a refusal naming both types", err)
	}
}
