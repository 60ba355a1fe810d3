package algorithm

import "fmt"

// FilterProvider rejects seeds of another provider type than allowed.
const FilterProvider Filter = "Provider"

// providerPlugin keeps seeds of the shoot's provider type; a providerTypes
// list of the cloud profile or the shoot widens that, and when both are set a
// seed must be allowed by both.
var providerPlugin = &filterPlugin{
	reasons: []*reason{{
		filter:  FilterProvider,
		short:   "provider type",
		message: func(r *run, v *verdict) string { return r.providerMessage(v.info) },
		lifts:   func(old, cur *seedInfo) bool { return old.providerType != cur.providerType },
	}},
	check: func(r *run, v *verdict) Filter {
		seedType, shootType := v.info.providerType, r.shoot.Spec.Provider.Type
		if len(r.cpProviders) == 0 && len(r.shootProvs) == 0 {
			if seedType != shootType {
				return FilterProvider
			}
			return ""
		}
		if (len(r.cpProviders) > 0 && !providerAllowed(seedType, shootType, r.cpProviders)) ||
			(len(r.shootProvs) > 0 && !providerAllowed(seedType, shootType, r.shootProvs)) {
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
	shootType := r.shoot.Spec.Provider.Type
	switch {
	case len(r.cpProviders) > 0 && !providerAllowed(info.providerType, shootType, r.cpProviders):
		return fmt.Sprintf("seed provider type %q is not in the providerTypes %v of CloudProfile %q", info.providerType, r.cpProviders, r.in.CloudProfile.Name)
	case len(r.shootProvs) > 0:
		return fmt.Sprintf("seed provider type %q is not in the providerTypes %s of the shoot's seedSelector", info.providerType, r.text().shootProvs)
	}
	return fmt.Sprintf("seed provider type %q is not the shoot's %q", info.providerType, r.text().providerType)
}
