package algorithm

import (
	"fmt"
	"slices"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

// FilterZonePinning rejects seeds that lack a zone the shoot pins its control
// plane to (spec.controlPlane.zones, Gardener 1.150).
const FilterZonePinning Filter = "ZonePinning"

// pinnedZones are the zones the shoot pins its control plane to.
func pinnedZones(shoot *v1alpha1.Shoot) []string {
	if cp := shoot.Spec.ControlPlane; cp != nil {
		return cp.Zones
	}
	return nil
}

// zonePinningPlugin keeps, for a shoot that pins its control plane to zones,
// only the seeds with every one of them. A zonal control plane spans every
// zone of its seed and is not checked, as in Gardener.
var zonePinningPlugin = &filterPlugin{
	reasons: []*reason{{
		filter: FilterZonePinning,
		short:  "lacks a pinned zone",
		message: func(r *run, v *verdict) string {
			return fmt.Sprintf("seed's zones %s do not include every zone %s the shoot pins its control plane to",
				clipList(v.info.seed.Spec.Provider.Zones), clipList(pinnedZones(r.shoot)))
		},
		lifts: zonesChanged,
	}},
	check: func(r *run, v *verdict) Filter {
		for _, z := range pinnedZones(r.shoot) {
			if !slices.Contains(v.info.seed.Spec.Provider.Zones, z) {
				return FilterZonePinning
			}
		}
		return ""
	},
	off: func(r *run) bool { return r.needsZones() || len(pinnedZones(r.shoot)) == 0 },
	headline: func(r *run, n int) string {
		return fmt.Sprintf("none of the %d seeds contains all requested control plane zones %s", n, clipList(pinnedZones(r.shoot)))
	},
}
