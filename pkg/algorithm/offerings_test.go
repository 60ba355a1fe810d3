package algorithm

import (
	"fmt"
	"strings"
	"testing"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/coretest"
)

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
			in := Inputs{CloudProfile: coretest.MakeCloudProfile("aws").Obj(), Project: tc.project}
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
		seeds: []*v1alpha1.Seed{coretest.MakeSeed("a-enforce").ZoneSelection(enforce, "x", "y").Obj(), coretest.MakeSeed("b-enforce").ZoneSelection(enforce, "a", "b").Obj()},
		shoot: coretest.MakeShoot("garden-dev", "s").Workers([]string{"b"}, []string{"z"}).Obj(),
		want:  "b-enforce",
		reasons: map[string][2]string{"a-enforce": {string(FilterZoneSelection),
			"seed enforces zone selection and none of its zones [x y] is a zone of the shoot's worker pools [b z]"}},
	}, {
		name:     "Enforce with no seed sharing a zone fails",
		seeds:    []*v1alpha1.Seed{coretest.MakeSeed("a").ZoneSelection(enforce, "x").Obj(), coretest.MakeSeed("b").ZoneSelection(enforce, "y").Obj()},
		shoot:    coretest.MakeShoot("garden-dev", "s").Workers([]string{"a"}).Obj(),
		headline: "none of the 2 seeds has any zone overlap with the shoot's worker pool zones (zone selection mode: Enforce)",
	}, {
		name:  "Enforce does not apply to a shoot whose pools name no zone",
		seeds: []*v1alpha1.Seed{coretest.MakeSeed("a").ZoneSelection(enforce, "x").Obj()},
		shoot: coretest.MakeShoot("garden-dev", "s").Workers(nil).Obj(),
		want:  "a",
	}, {
		name:  "a zonal HA control plane is exempt",
		seeds: []*v1alpha1.Seed{coretest.MakeSeed("a").ZoneSelection(enforce, "x", "y", "z").Obj()},
		shoot: coretest.MakeShoot("garden-dev", "s").Workers([]string{"a"}).FailureTolerance(v1alpha1.FailureToleranceTypeZone).Obj(),
		want:  "a",
	}, {
		name: "Prefer seeds sharing a zone win over Prefer seeds that do not",
		// a-prefer would win as the first name among equally used seeds.
		seeds: []*v1alpha1.Seed{coretest.MakeSeed("a-prefer").ZoneSelection(prefer, "x").Obj(), coretest.MakeSeed("b-prefer").ZoneSelection(prefer, "a").Obj()},
		shoot: coretest.MakeShoot("garden-dev", "s").Workers([]string{"a"}).Obj(),
		want:  "b-prefer",
		reasons: map[string][2]string{"a-prefer": {string(FilterZonePreference),
			"seed prefers worker pool zones and none of its zones [x] is one of the shoot's [a]"}},
	}, {
		name:  "a seed without zone selection also beats a Prefer seed sharing no zone",
		seeds: []*v1alpha1.Seed{coretest.MakeSeed("a-prefer").ZoneSelection(prefer, "x").Obj(), coretest.MakeSeed("b-plain").Obj()},
		shoot: coretest.MakeShoot("garden-dev", "s").Workers([]string{"a"}).Obj(),
		want:  "b-plain",
	}, {
		name:  "Prefer seeds sharing no zone are the fallback when nothing else is left",
		seeds: []*v1alpha1.Seed{coretest.MakeSeed("a-prefer").ZoneSelection(prefer, "x").Obj(), coretest.MakeSeed("b-prefer").ZoneSelection(prefer, "y").Obj()},
		shoot: coretest.MakeShoot("garden-dev", "s").Workers([]string{"a"}).Obj(),
		want:  "a-prefer",
	}, {
		// The preference comes before the capacity check, as in Gardener:
		// the full seed sharing a zone still sets the other aside.
		name:  "the preference is decided before capacity",
		seeds: []*v1alpha1.Seed{coretest.MakeSeed("a-prefer").ZoneSelection(prefer, "x").Obj(), coretest.MakeSeed("b-prefer").ZoneSelection(prefer, "a").Allocatable(0).Obj()},
		shoot: coretest.MakeShoot("garden-dev", "s").Workers([]string{"a"}).Obj(),
		want:  "",
	}})
}

// TestZonePinning: a shoot that pins its control plane to zones goes only to
// a seed with all of them, whatever the seed's zone selection mode, and fails
// with Gardener's words where none has them.
func TestZonePinning(t *testing.T) {
	enforce, prefer := v1alpha1.ZoneSelectionModeEnforce, v1alpha1.ZoneSelectionModePrefer
	runOfferingCases(t, []offeringCase{{
		name:  "only a seed with the pinned zone",
		seeds: []*v1alpha1.Seed{coretest.MakeSeed("a").Zones("x", "y").Obj(), coretest.MakeSeed("b").Zones("y", "z").Obj(), coretest.MakeSeed("c").Zones().Obj()},
		shoot: coretest.MakeShoot("garden-dev", "s").PinZones("z").Obj(),
		want:  "b",
		reasons: map[string][2]string{
			"a": {string(FilterZonePinning), "seed's zones [x y] do not include every zone [z] the shoot pins its control plane to"},
			"c": {string(FilterZonePinning), "seed's zones [] do not include every zone [z] the shoot pins its control plane to"},
		},
	}, {
		name:     "no seed has every pinned zone",
		seeds:    []*v1alpha1.Seed{coretest.MakeSeed("a").Zones("x").Obj(), coretest.MakeSeed("b").Zones("y").Obj()},
		shoot:    coretest.MakeShoot("garden-dev", "s").PinZones("z").Obj(),
		headline: "none of the 2 seeds contains all requested control plane zones [z]",
	}, {
		// The pinned zone replaces the worker pools' as the hint: Enforce
		// would keep a-enforce off (no zone y), and Prefer would set it
		// aside for b-prefer.
		name: "pinning replaces zone selection",
		seeds: []*v1alpha1.Seed{coretest.MakeSeed("a-enforce").ZoneSelection(enforce, "x").Obj(),
			coretest.MakeSeed("b-prefer").ZoneSelection(prefer, "x", "y").Obj()},
		shoot: coretest.MakeShoot("garden-dev", "s").Workers([]string{"y"}).PinZones("x").Obj(),
		want:  "a-enforce",
	}, {
		name:  "pinning applies to a seed without zone selection",
		seeds: []*v1alpha1.Seed{coretest.MakeSeed("a").Zones("y").Obj(), coretest.MakeSeed("b").Zones("x").Obj()},
		shoot: coretest.MakeShoot("garden-dev", "s").Workers([]string{"y"}).PinZones("x").Obj(),
		want:  "b",
	}, {
		// Gardener returns early for a zonal control plane: it spans every
		// zone of its seed.
		name:  "a zonal HA control plane is not checked",
		seeds: []*v1alpha1.Seed{coretest.MakeSeed("a").Zones("p", "q", "r").Obj()},
		shoot: coretest.MakeShoot("garden-dev", "s").FailureTolerance(v1alpha1.FailureToleranceTypeZone).PinZones("x", "y", "z").Obj(),
		want:  "a",
	}})
}

func TestAccessRestrictions(t *testing.T) {
	runOfferingCases(t, []offeringCase{{
		name:  "an eu-access-only shoot goes only where it is offered",
		seeds: []*v1alpha1.Seed{coretest.MakeSeed("a-anywhere").Obj(), coretest.MakeSeed("b-eu").AccessRestrictions("eu-access-only").Obj()},
		shoot: coretest.MakeShoot("garden-dev", "s").AccessRestrictions("eu-access-only").Obj(),
		want:  "b-eu",
		reasons: map[string][2]string{"a-anywhere": {string(FilterAccessRestrictions),
			"seed does not offer access restriction eu-access-only"}},
	}, {
		name:  "every restriction must be offered",
		seeds: []*v1alpha1.Seed{coretest.MakeSeed("a-eu").AccessRestrictions("eu-access-only").Obj(), coretest.MakeSeed("b-both").AccessRestrictions("sovereign", "eu-access-only").Obj()},
		shoot: coretest.MakeShoot("garden-dev", "s").AccessRestrictions("eu-access-only", "sovereign").Obj(),
		want:  "b-both",
	}, {
		name:  "a shoot without restrictions may use a seed offering some",
		seeds: []*v1alpha1.Seed{coretest.MakeSeed("a-eu").AccessRestrictions("eu-access-only").Obj()},
		shoot: coretest.MakeShoot("garden-dev", "s").Obj(),
		want:  "a-eu",
	}, {
		name:     "none offered",
		seeds:    []*v1alpha1.Seed{coretest.MakeSeed("a").Obj(), coretest.MakeSeed("b").AccessRestrictions("sovereign").Obj()},
		shoot:    coretest.MakeShoot("garden-dev", "s").AccessRestrictions("eu-access-only").Obj(),
		headline: "none of the 2 seeds supports the access restrictions configured in the shoot specification",
	}, {
		name:  "a restriction named twice needs two offered, as in Gardener",
		seeds: []*v1alpha1.Seed{coretest.MakeSeed("a").AccessRestrictions("eu-access-only").Obj()},
		shoot: coretest.MakeShoot("garden-dev", "s").AccessRestrictions("eu-access-only", "eu-access-only").Obj(),
		reasons: map[string][2]string{"a": {string(FilterAccessRestrictions),
			"shoot asks for 2 access restrictions, more than the 1 the seed offers"}},
	}})
}

func TestDefaultDomains(t *testing.T) {
	runOfferingCases(t, []offeringCase{{
		name:  "a default domain goes to the seed that has it",
		seeds: []*v1alpha1.Seed{coretest.MakeSeed("a-other").DefaultDomains("other.example").Obj(), coretest.MakeSeed("b-ours").DefaultDomains("ours.example").Obj(), coretest.MakeSeed("c-none").Obj()},
		shoot: coretest.MakeShoot("garden-dev", "s").Domain("s.dev.ours.example").Obj(),
		want:  "b-ours",
		reasons: map[string][2]string{
			"a-other": {string(FilterDomain), `shoot domain "s.dev.ours.example" lies under a seed's default domain, and no default domain of this seed gives it`},
			"c-none":  {string(FilterDomain), "(project dev)"},
		},
	}, {
		name:  "a custom domain may go anywhere",
		seeds: []*v1alpha1.Seed{coretest.MakeSeed("a-other").DefaultDomains("other.example").Obj(), coretest.MakeSeed("b-none").Obj()},
		shoot: coretest.MakeShoot("garden-dev", "s").Domain("api.my-company.example").Obj(),
		want:  "a-other",
	}, {
		name:     "under a default domain but not <shoot>.<project>.<domain>",
		seeds:    []*v1alpha1.Seed{coretest.MakeSeed("a").DefaultDomains("ours.example").Obj(), coretest.MakeSeed("b").Obj()},
		shoot:    coretest.MakeShoot("garden-dev", "s").Domain("s.someone-else.ours.example").Obj(),
		headline: `none of the 2 seeds support the domain "s.someone-else.ours.example" configured in the shoot specification`,
	}, {
		name:    "the project comes from the inputs when known",
		seeds:   []*v1alpha1.Seed{coretest.MakeSeed("a").DefaultDomains("ours.example").Obj()},
		shoot:   coretest.MakeShoot("garden-dev", "s").Domain("s.team.ours.example").Obj(),
		project: "team",
		want:    "a",
	}, {
		// Only seeds still in the running decide whether the domain is a
		// default one: with the seed that has it rejected earlier, the
		// domain counts as the shoot's own.
		name:  "a default domain of a seed rejected earlier does not count",
		seeds: []*v1alpha1.Seed{coretest.MakeSeed("a-gcp").Provider("gcp", "eu-west-1").DefaultDomains("ours.example").Obj(), coretest.MakeSeed("b-none").Obj()},
		shoot: coretest.MakeShoot("garden-dev", "s").Domain("s.someone-else.ours.example").Obj(),
		want:  "b-none",
	}})
}

func TestEmergencyStop(t *testing.T) {
	key := v1alpha1.AnnotationEmergencyStopShootReconciliations
	runOfferingCases(t, []offeringCase{{
		name:  "a stopped seed takes no shoots",
		seeds: []*v1alpha1.Seed{coretest.MakeSeed("a-stopped").Annotation(key, "true").Obj(), coretest.MakeSeed("b").Obj()},
		shoot: coretest.MakeShoot("garden-dev", "s").Obj(),
		want:  "b",
		reasons: map[string][2]string{"a-stopped": {string(FilterEmergencyStop),
			"seed is annotated shoot.gardener.cloud/emergency-stop-reconciliations=true"}},
	}, {
		name:  "only the value true stops",
		seeds: []*v1alpha1.Seed{coretest.MakeSeed("a-malformed").Annotation(key, "True").Obj(), coretest.MakeSeed("b-yes").Annotation(key, "yes").Obj()},
		shoot: coretest.MakeShoot("garden-dev", "s").Obj(),
		want:  "a-malformed",
	}, {
		name:     "every seed stopped",
		seeds:    []*v1alpha1.Seed{coretest.MakeSeed("a").Annotation(key, "true").Obj()},
		shoot:    coretest.MakeShoot("garden-dev", "s").Obj(),
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
	shoot := coretest.MakeShoot("garden-dev", "s").With(func(s *v1alpha1.Shoot) {
		s.Spec.CloudProfile = &v1alpha1.CloudProfileReference{Kind: KindNamespacedCloudProfile, Name: "aws"}
	}).Obj()
	_, err := Schedule(shoot, snapshotOf(seeds(coretest.MakeSeed("a").Obj())), Inputs{CloudProfile: coretest.MakeCloudProfile("aws").Obj()})
	if err == nil || !strings.Contains(err.Error(), "names NamespacedCloudProfile aws; graft places only shoots of cluster-wide CloudProfiles") {
		t.Fatalf("Schedule: %v, want a refusal naming the NamespacedCloudProfile", err)
	}
}

// TestProviderTypeMustBeTheProfiles: a shoot whose provider type is not its
// cloud profile's is not decided (graft-shoot-cloud-profile refuses it, but
// may be skipped right after an API server start), so that it cannot take
// another provider's seed selector.
func TestProviderTypeMustBeTheProfiles(t *testing.T) {
	borrowed := coretest.MakeShoot("garden-dev", "s").Provider("gcp", "eu-west-1").Obj()
	_, err := Schedule(borrowed, snapshotOf(seeds(coretest.MakeSeed("a").Provider("gcp", "eu-west-1").Obj())), Inputs{CloudProfile: coretest.MakeCloudProfile("aws").Obj()})
	if err == nil || !strings.Contains(err.Error(), `has provider type "gcp", but its cloud profile aws is of type "aws"`) {
		t.Fatalf("Schedule: %v, want a refusal naming both types", err)
	}
}

// A tenant's pinned zone is quoted clipped: Gardener's validation counts the
// zones but does not bound their names.
func TestZonePinningQuotesClipped(t *testing.T) {
	huge := strings.Repeat("z", 1<<16)
	_, err := Schedule(coretest.MakeShoot("garden-dev", "s").PinZones(huge).Obj(), snapshotOf(seeds(coretest.MakeSeed("a").Obj())), Inputs{CloudProfile: coretest.MakeCloudProfile("aws").Obj()})
	if err == nil || !strings.Contains(err.Error(), "none of the 1 seeds contains all requested control plane zones [") || len(err.Error()) > 4096 {
		t.Fatalf("error of %d bytes: %.200v", len(fmt.Sprint(err)), err)
	}
}
