package algorithm

import (
	"slices"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

// Zone selection, as Gardener's scheduler applies it after the HA zone
// check: a seed of mode Enforce takes a shoot only when one of its zones is
// a zone of the shoot's worker pools; among the rest, seeds of mode Prefer
// that share no zone with them are set aside while other seeds are left. A
// control plane with failure tolerance zone spans every zone anyway, so the
// rule does not apply to it; nor does Enforce to a shoot whose pools name no
// zone.

func zoneSelectionMode(seed *v1alpha1.Seed) v1alpha1.ZoneSelectionMode {
	if s := seed.Spec.Settings; s != nil && s.ZoneSelection != nil {
		return s.ZoneSelection.Mode
	}
	return ""
}

// workerZones are the zones of the shoot's worker pools, each once, sorted.
func workerZones(shoot *v1alpha1.Shoot) []string {
	var zones []string
	for _, w := range shoot.Spec.Provider.Workers {
		zones = append(zones, w.Zones...)
	}
	slices.Sort(zones)
	return slices.Compact(zones)
}

// sharesZone reports whether the seed has one of the zones.
func sharesZone(seed *v1alpha1.Seed, zones []string) bool {
	return slices.ContainsFunc(seed.Spec.Provider.Zones, func(z string) bool {
		_, found := slices.BinarySearch(zones, z)
		return found
	})
}

func (r *run) checkZoneSelection(v *verdict) Filter {
	if r.needsZones() || v.info.zoneMode != v1alpha1.ZoneSelectionModeEnforce {
		return ""
	}
	if len(r.zones) > 0 && !sharesZone(v.info.seed, r.zones) {
		return FilterZoneSelection
	}
	return ""
}

// missesPreferredZones is the Prefer half: a seed of mode Prefer sharing no
// zone with the shoot's worker pools.
func (r *run) missesPreferredZones(info *seedInfo) bool {
	return !r.needsZones() && len(r.zones) > 0 &&
		info.zoneMode == v1alpha1.ZoneSelectionModePrefer && !sharesZone(info.seed, r.zones)
}
