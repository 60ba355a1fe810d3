package algorithm

import "fmt"

// FilterProvider rejects seeds of another provider type than allowed.
const FilterProvider Filter = "Provider"

// providerPlugin keeps seeds of the shoot's provider type, or of the types
// the cloud profile's seedSelector.providerTypes lists ("*": any). As in
// Gardener, the shoot's own providerTypes do not steer the decision: Gardener
// reads them only to refuse a selector change that would no longer match the
// seed the shoot is on.
var providerPlugin = &filterPlugin{
	reasons: []*reason{{
		filter:  FilterProvider,
		short:   "provider type",
		message: func(r *run, v *verdict) string { return r.providerMessage(v.info) },
		lifts:   func(old, cur *seedInfo) bool { return old.providerType != cur.providerType },
	}},
	check: func(r *run, v *verdict) Filter {
		if !providerAllowed(v.info.providerType, r.shoot.Spec.Provider.Type, r.cpProviders) {
			return FilterProvider
		}
		return ""
	},
	headline: func(r *run, n int) string {
		return fmt.Sprintf("none out of the %d seeds has a matching provider for %q", n, r.text().providerType)
	},
}

func providerAllowed(seedType, shootType string, allowed []string) bool {
	if len(allowed) == 0 {
		return seedType == shootType
	}
	for _, p := range allowed {
		if p == "*" || p == seedType {
			return true
		}
	}
	return false
}

func (r *run) providerMessage(info *seedInfo) string {
	if len(r.cpProviders) > 0 {
		return fmt.Sprintf("seed provider type %q is not in the providerTypes %v of CloudProfile %q", info.providerType, r.cpProviders, r.in.CloudProfile.Name)
	}
	return fmt.Sprintf("seed provider type %q is not the shoot's %q", info.providerType, r.text().providerType)
}
