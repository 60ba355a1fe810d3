package algorithm

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"
)

// scheduleError builds the error of a decision that found no seed.
func (r *run) scheduleError() *ScheduleError {
	e := &ScheduleError{
		Shoot:      ShootKey(r.shoot),
		Filter:     r.failFilter,
		Headline:   r.headline(),
		Rejections: make([]Rejection, 0, len(r.verdicts)),
	}
	for i := range r.verdicts {
		v := &r.verdicts[i]
		e.Rejections = append(e.Rejections, Rejection{Seed: v.info.name, Filter: v.filter, Message: r.message(v)})
	}
	slices.SortFunc(e.Rejections, func(a, b Rejection) int { return strings.Compare(a.Seed, b.Seed) })
	if !r.ignoreCapacity && slices.ContainsFunc(r.verdicts, func(v verdict) bool { return v.filter == FilterCapacity }) {
		// A capacity shortage is one the shoot would get past if the full
		// seeds had room; decide again without the capacity check to know.
		if again, err := decide(r.shoot, r.snap, r.in, r.exclude, true); err == nil {
			e.NoCapacity = again.chosen >= 0
			withRoom := map[string]Filter{}
			for i := range r.verdicts {
				if f := again.verdicts[i].filter; r.verdicts[i].filter == FilterCapacity && (f == FilterStrategy || f == FilterLimitedToleration) {
					withRoom[r.verdicts[i].info.name] = f
				}
			}
			again.release()
			for i := range e.Rejections {
				e.Rejections[i].WithRoom = withRoom[e.Rejections[i].Seed]
			}
		}
	}
	return e
}

// headline is the reference scheduler's message for the step that removed the
// last candidates; n is the number of seeds that entered it.
func (r *run) headline() string {
	n := r.failEntering
	switch r.failStep {
	case FilterExcluded:
		return fmt.Sprintf("no seed other than the current seed %q exists", r.exclude)
	case FilterUsable:
		return fmt.Sprintf("none of the %d seeds is valid for scheduling (not deleting, visible and ready)", n)
	case FilterCloudProfileSeedSelector:
		return fmt.Sprintf("none out of the %d seeds has the matching labels required by seed selector of 'CloudProfile' (selector: '%s')", n, r.text().cpSelector)
	case FilterShootSeedSelector:
		return fmt.Sprintf("none out of the %d seeds has the matching labels required by seed selector of 'Shoot' (selector: '%s')", n, r.text().shootSelector)
	case FilterProvider:
		return fmt.Sprintf("none out of the %d seeds has a matching provider for %q", n, r.text().providerType)
	case FilterHighAvailability:
		return fmt.Sprintf("none of the %d seeds has at least 3 zones for hosting a shoot control plane with failure tolerance type 'zone'", n)
	case FilterZoneSelection:
		return fmt.Sprintf("none of the %d seeds has any zone overlap with the shoot's worker pool zones (zone selection mode: %s)", n, v1alpha1.ZoneSelectionModeEnforce)
	case FilterAccessRestrictions:
		return fmt.Sprintf("none of the %d seeds supports the access restrictions configured in the shoot specification", n)
	case FilterDomain:
		domain, _ := shootDomain(r.shoot)
		return fmt.Sprintf("none of the %d seeds support the domain %q configured in the shoot specification", n, clip(domain))
	case FilterEmergencyStop:
		return fmt.Sprintf("none of the %d seeds have enabled shoot reconciliations currently", n)
	case FilterMigration:
		return fmt.Sprintf("none of the %d seeds is one Gardener would move the control plane to from seed %q", n, r.source.Name)
	case FilterEvacuating:
		return fmt.Sprintf("control planes are being moved off each of the %d seeds left", n)
	case FilterNetworks:
		return fmt.Sprintf("0/%d seed cluster candidate(s) are eligible for scheduling", n)
	case FilterLimitedToleration:
		return fmt.Sprintf("none of the %d seeds left lets the shoot stay without a limit: it tolerates their NoExecute taints only for a while, and a move must take it where it may stay", n)
	case FilterStrategy:
		return fmt.Sprintf("no matching seed candidate found for Configuration (Cloud Profile '%s', Region '%s', SeedDeterminationStrategy '%s')",
			r.in.CloudProfile.Name, r.text().region, r.strategy)
	}
	return "no seed is eligible for scheduling"
}

// message is the long reason for one seed's verdict.
func (r *run) message(v *verdict) string {
	info := v.info
	switch v.filter {
	case FilterExcluded:
		return "the shoot's current seed"
	case FilterUsable:
		return info.unusable
	case FilterCloudProfileSeedSelector:
		return fmt.Sprintf("seed labels do not match the seed selector of CloudProfile %q (%s)", r.in.CloudProfile.Name, r.text().cpSelector)
	case FilterShootSeedSelector:
		return fmt.Sprintf("seed labels do not match the shoot's seed selector (%s)", r.text().shootSelector)
	case FilterProvider:
		return r.providerMessage(info)
	case FilterHighAvailability:
		return fmt.Sprintf("seed has %d zone(s); a control plane with failure tolerance type 'zone' needs at least 3", info.zones)
	case FilterZoneSelection:
		return fmt.Sprintf("seed enforces zone selection and none of its zones %s is a zone of the shoot's worker pools %s",
			clipList(info.seed.Spec.Provider.Zones), clipList(r.zones))
	case FilterZonePreference:
		return fmt.Sprintf("seed prefers worker pool zones and none of its zones %s is one of the shoot's %s; seeds that share a zone or do not select zones are left",
			clipList(info.seed.Spec.Provider.Zones), clipList(r.zones))
	case FilterAccessRestrictions:
		if missing := missingAccessRestriction(info.seed, r.shoot.Spec.AccessRestrictions); missing != "" {
			return "seed does not offer access restriction " + clip(missing)
		}
		return fmt.Sprintf("shoot asks for %d access restrictions, more than the %d the seed offers", len(r.shoot.Spec.AccessRestrictions), len(info.seed.Spec.AccessRestrictions))
	case FilterDomain:
		domain, _ := shootDomain(r.shoot)
		return fmt.Sprintf("shoot domain %q lies under a seed's default domain, and no default domain of this seed gives it as <shoot>.<project>.<domain> (project %s)",
			clip(domain), r.project())
	case FilterEvacuating:
		return "control planes are being moved off the seed: it receives none until that ends"
	case FilterMigration:
		if refusal := CheckMigration(r.shoot, r.source, info.seed); refusal != nil {
			return refusal.String()
		}
		return "Gardener would refuse the migration"
	case FilterEmergencyStop:
		return fmt.Sprintf("seed is annotated %s=true: its shoots' reconciliations are stopped, it takes no shoots", v1alpha1.AnnotationEmergencyStopShootReconciliations)
	case FilterNetworks:
		if msg := r.nets.seedError(info); msg != "" {
			return "invalid networks: " + msg
		}
		var overlaps []string
		more := 0
		r.nets.overlaps(info, func(s, t network) bool {
			if len(overlaps) < maxListed {
				overlaps = append(overlaps, "shoot "+s.String()+" intersects with seed "+t.String())
			} else {
				more++
			}
			return true
		})
		if more > 0 {
			overlaps = append(overlaps, fmt.Sprintf("and %d more", more))
		}
		return "invalid networks: [" + strings.Join(overlaps, "; ") + "]"
	case FilterTaints:
		untolerated := UntoleratedTaints(info.taints, r.tolerations, v1alpha1.TaintEffectNoSchedule, v1alpha1.TaintEffectNoExecute)
		if len(untolerated) == 0 {
			return "shoot was evicted from this seed and tolerates its NoExecute taints only for a limited time (" +
				formatTaints(LimitedNoExecuteTaints(info.taints, r.tolerations)) + ")"
		}
		return untoleratedMessage(r.shoot, untolerated)
	case FilterTolerationRunsOut:
		return fmt.Sprintf("shoot tolerates the seed's NoExecute taints for less than %s (%s): it would have to leave as soon as it arrived",
			MinimumStay, formatLimited(RunOutNoExecuteTaints(info.taints, r.tolerations), r.tolerations))
	case FilterCapacity:
		return fmt.Sprintf("seed does not have available capacity for shoots (%d counted, %d allocatable)", v.usage, info.allocatable)
	case FilterStrategy:
		if r.testing {
			return fmt.Sprintf("seed provider type %q is not the shoot's %q (purpose testing allows any region of the same provider type)",
				info.providerType, r.text().providerType)
		}
		return fmt.Sprintf("seed is in region %q of provider type %q; strategy SameRegion needs region %q of provider type %q",
			info.region, info.providerType, r.text().region, r.text().providerType)
	case FilterLimitedToleration:
		if r.exclude != "" {
			return "shoot tolerates this seed's NoExecute taints only for a limited time (" +
				formatLimited(LimitedNoExecuteTaints(info.taints, r.tolerations), r.tolerations) +
				"); a move must take it where it may stay without a limit"
		}
		return "shoot evicted from seed " + r.evictedFrom() +
			" tolerates this seed's NoExecute taints only for a limited time (" +
			formatLimited(LimitedNoExecuteTaints(info.taints, r.tolerations), r.tolerations) +
			"), so it would be evicted again; seeds where it may stay are left"
	case FilterPreferNoSchedule:
		return "shoot does not tolerate the seed's PreferNoSchedule taints (" + formatTaints(r.untoleratedPreferNoSchedule(info)) +
			") and seeds without such taints are left"
	case FilterMinimalDistance:
		if !v.hasDistance && v.distance > math.MaxInt32 {
			return fmt.Sprintf("region %q is listed for shoot region %q at %d in region ConfigMap %s, above the largest distance considered (%d)",
				info.region, r.text().region, v.distance, r.regionSource, math.MaxInt32)
		}
		if v.hasDistance && !r.distancesListed && v.distance > MaxFallbackDistance {
			return fmt.Sprintf("Levenshtein distance %d between regions %q and %q is above %d, the largest considered",
				v.distance, r.text().region, info.region, MaxFallbackDistance)
		}
		if !v.hasDistance {
			return fmt.Sprintf("region %q is not listed for shoot region %q in region ConfigMap %s, which lists other candidates",
				info.region, r.text().region, r.regionSource)
		}
		return fmt.Sprintf("distance %d is larger than the minimal distance %d", v.distance, r.minDistance)
	case FilterLeastUsed:
		c := &r.verdicts[r.chosen]
		if v.usage == c.usage {
			return fmt.Sprintf("as many shoots (%d) as seed %s, whose name sorts first", v.usage, c.info.name)
		}
		return fmt.Sprintf("more shoots (%d) than seed %s (%d)", v.usage, c.info.name, c.usage)
	case FilterScore:
		c := &r.verdicts[r.chosen]
		if v.score == c.score {
			return fmt.Sprintf("same score %d as seed %s, which has fewer shoots or sorts first", v.score, c.info.name)
		}
		return fmt.Sprintf("score %d is lower than the %d of seed %s", v.score, c.score, c.info.name)
	}
	return ""
}

func (r *run) providerMessage(info *seedInfo) string {
	shootType := r.shoot.Spec.Provider.Type
	switch {
	case len(r.cpProviders) > 0 && !providerAllowed(info.providerType, shootType, r.cpProviders):
		return fmt.Sprintf("seed provider type %q is not in the providerTypes %v of CloudProfile %q", info.providerType, r.cpProviders, r.in.CloudProfile.Name)
	case len(r.shootProvs) > 0:
		return fmt.Sprintf("seed provider type %q is not in the providerTypes %s of the shoot's seedSelector", info.providerType, r.text().shootProvs)
	}
	return fmt.Sprintf("seed provider type %q is not the shoot's %q", info.providerType, r.text().providerType)
}

// Messages quote what a tenant wrote on its shoot, and a decision repeats it
// for every seed: they quote at most maxQuoted bytes of one string and list at
// most maxListed items, so that a message's size does not grow with the input.
const (
	maxQuoted = 64
	maxListed = 3
)

// clip returns s, or its first maxQuoted bytes (cut at a rune's start)
// followed by its length.
func clip(s string) string {
	if len(s) <= maxQuoted {
		return s
	}
	return fmt.Sprintf("%s...(%d bytes)", cutAtRune(s, maxQuoted), len(s))
}

// clipList writes a list as %v does, with at most maxListed items, each
// clipped.
func clipList(items []string) string {
	parts := make([]string, 0, min(len(items), maxListed)+1)
	for i, it := range items {
		if i == maxListed {
			parts = append(parts, fmt.Sprintf("and %d more", len(items)-maxListed))
			break
		}
		parts = append(parts, clip(it))
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// messageText is what the messages of one decision quote from the shoot
// (clipped) and its cloud profile, written once for all seeds.
type messageText struct {
	region, providerType, shootProvs string
	shootSelector, cpSelector        string
}

func (r *run) text() *messageText {
	if r.quoted == nil {
		t := &messageText{
			region:       clip(r.shoot.Spec.Region),
			providerType: clip(r.shoot.Spec.Provider.Type),
			shootProvs:   clipList(r.shootProvs),
		}
		if r.shootSelector != nil {
			t.shootSelector = clip(r.shootSelector.String())
		}
		if r.cpSelector != nil {
			// The operator's, so whole; written once for all seeds.
			t.cpSelector = r.cpSelector.String()
		}
		r.quoted = t
	}
	return r.quoted
}

// formatLimited writes NoExecute taints with the longest tolerationSeconds
// the tolerations give each, e.g. "key:NoExecute for 300s".
func formatLimited(taints []v1alpha1.SeedTaint, tolerations []v1alpha1.Toleration) string {
	parts := make([]string, len(taints))
	for i, t := range taints {
		var longest int64
		for _, tol := range tolerations {
			if ToleratesTaint(tol, t) && tol.TolerationSeconds != nil {
				longest = max(longest, *tol.TolerationSeconds)
			}
		}
		parts[i] = fmt.Sprintf("%s for %ds", helper.FormatTaint(t), longest)
	}
	return strings.Join(parts, ", ")
}

func formatTaints(taints []v1alpha1.SeedTaint) string {
	return helper.FormatTaints(taints, ", ")
}
