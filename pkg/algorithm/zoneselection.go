package algorithm

import (
	"fmt"
	"slices"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

const (
	// FilterZoneSelection rejects seeds whose zone selection mode Enforce
	// finds none of their zones among the zones of the shoot's worker pools.
	FilterZoneSelection Filter = "ZoneSelection"
	// FilterZonePreference sets aside seeds of zone selection mode Prefer
	// that share no zone with the shoot's worker pools, when other seeds are
	// left.
	FilterZonePreference Filter = "ZonePreference"
)

// Zone pinning and zone selection, as Gardener's scheduler applies them after
// the HA zone check. A shoot that pins its control plane to zones goes only to
// a seed with all of them, whatever the seed's zone selection mode; zone
// selection then does not apply. Otherwise: a seed of mode Enforce takes a shoot only when one of its zones is
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

// zoneSelectionPlugin is the Enforce half: a seed of mode Enforce sharing no
// zone with the shoot's worker pools is rejected.
var zoneSelectionPlugin = &filterPlugin{
	reasons: []*reason{{
		filter: FilterZoneSelection,
		short:  "no zone of the worker pools",
		message: func(r *run, v *verdict) string {
			return fmt.Sprintf("seed enforces zone selection and none of its zones %s is a zone of the shoot's worker pools %s",
				clipList(v.info.seed.Spec.Provider.Zones), clipList(r.zones))
		},
		lifts: zonesChanged,
	}},
	check: func(r *run, v *verdict) Filter {
		if v.info.zoneMode == v1alpha1.ZoneSelectionModeEnforce && !sharesZone(v.info.seed, r.zones) {
			return FilterZoneSelection
		}
		return ""
	},
	off: zoneSelectionOff,
	headline: func(_ *run, n int) string {
		return fmt.Sprintf("none of the %d seeds has any zone overlap with the shoot's worker pool zones (zone selection mode: %s)", n, v1alpha1.ZoneSelectionModeEnforce)
	},
}

// zonePreferencePlugin is the Prefer half: a seed of mode Prefer sharing no
// zone with the shoot's worker pools is set aside while others are left.
var zonePreferencePlugin = &filterPlugin{
	reasons: []*reason{{
		filter: FilterZonePreference,
		short:  "zone preference",
		message: func(r *run, v *verdict) string {
			return fmt.Sprintf("seed prefers worker pool zones and none of its zones %s is one of the shoot's %s; seeds that share a zone or do not select zones are left",
				clipList(v.info.seed.Spec.Provider.Zones), clipList(r.zones))
		},
		lifts: zonesChanged,
	}},
	aside: func(r *run, info *seedInfo) bool {
		return info.zoneMode == v1alpha1.ZoneSelectionModePrefer && !sharesZone(info.seed, r.zones)
	},
	off: zoneSelectionOff,
}

// zoneSelectionOff: a zonal control plane spans every zone, pinned zones
// replace the worker pools' as the hint, and pools that name no zone share
// none.
func zoneSelectionOff(r *run) bool {
	return r.needsZones() || len(pinnedZones(r.shoot)) > 0 || len(r.zones) == 0
}

func zonesChanged(old, cur *seedInfo) bool {
	return old.zoneMode != cur.zoneMode || !slices.Equal(old.seed.Spec.Provider.Zones, cur.seed.Spec.Provider.Zones)
}
