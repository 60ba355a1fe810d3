package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
)

// Validate returns every invalid field of the capacity annotator's configuration.
func (c *CapacityAnnotatorConfiguration) Validate() field.ErrorList {
	errs := c.CommonConfiguration.Validate(nil)
	switch c.API {
	case APIGraft:
	case APIGardener:
		const why = "gardenlet reports a Gardener seed's capacity and allocatable; the annotator writes neither on core.gardener.cloud"
		if len(c.Capacity) > 0 {
			errs = append(errs, field.Forbidden(field.NewPath("capacity"), why))
		}
		if len(c.Reserved) > 0 {
			errs = append(errs, field.Forbidden(field.NewPath("reserved"), why))
		}
		if len(c.Overrides) > 0 {
			errs = append(errs, field.Forbidden(field.NewPath("overrides"), why))
		}
		if c.RespectSeedCapacity {
			errs = append(errs, field.Forbidden(field.NewPath("respectSeedCapacity"), why))
		}
	default:
		errs = append(errs, field.NotSupported(field.NewPath("api"), c.API, []SchedulerAPI{APIGraft, APIGardener}))
	}

	errs = append(errs, validateResourceList(field.NewPath("capacity"), c.Capacity)...)
	errs = append(errs, validateResourceList(field.NewPath("reserved"), c.Reserved)...)
	for i, o := range c.Overrides {
		oPath := field.NewPath("overrides").Index(i)
		errs = append(errs, metav1validation.ValidateLabelSelector(&o.SeedSelector,
			metav1validation.LabelSelectorValidationOptions{}, oPath.Child("seedSelector"))...)
		errs = append(errs, validateResourceList(oPath.Child("capacity"), o.Capacity)...)
		errs = append(errs, validateResourceList(oPath.Child("reserved"), o.Reserved)...)
		if len(o.Capacity) == 0 && len(o.Reserved) == 0 {
			errs = append(errs, field.Required(oPath, "an override needs capacity or reserved"))
		}
	}
	if c.SyncPeriod.Duration <= 0 {
		errs = append(errs, field.Invalid(field.NewPath("syncPeriod"), c.SyncPeriod.Duration.String(), "must be greater than zero"))
	}
	if c.ConcurrentSyncs < 1 {
		errs = append(errs, field.Invalid(field.NewPath("concurrentSyncs"), c.ConcurrentSyncs, "must be at least 1"))
	}
	if d := c.HealthTaints.UnhealthyEvictionDelay; d != nil && d.Duration < 0 {
		errs = append(errs, field.Invalid(field.NewPath("healthTaints", "unhealthyEvictionDelay"), d.Duration.String(), "must not be negative"))
	}
	errs = append(errs, c.validateForecast()...)
	return errs
}

// validateForecast checks the forecast and the pools; a ManagedSeedSet is
// scaled only on Gardener's API, which serves them.
func (c *CapacityAnnotatorConfiguration) validateForecast() field.ErrorList {
	var errs field.ErrorList
	fPath := field.NewPath("forecast")
	for name, d := range map[string]metav1.Duration{"period": c.Forecast.Period, "window": c.Forecast.Window, "horizon": c.Forecast.Horizon} {
		if d.Duration <= 0 {
			errs = append(errs, field.Invalid(fPath.Child(name), d.Duration.String(), "must be greater than zero"))
		}
	}
	if c.Forecast.Window.Duration > 0 && c.Forecast.Period.Duration > c.Forecast.Window.Duration {
		errs = append(errs, field.Invalid(fPath.Child("period"), c.Forecast.Period.Duration.String(), "must not be longer than the window"))
	}
	if len(c.Pools) > 0 && !c.Forecast.Enabled {
		errs = append(errs, field.Invalid(fPath.Child("enabled"), false, "pools need the forecast enabled"))
	}
	names := map[string]bool{}
	sets := map[string]bool{}
	for i, p := range c.Pools {
		pPath := field.NewPath("pools").Index(i)
		for _, msg := range validation.IsDNS1123Label(p.Name) {
			errs = append(errs, field.Invalid(pPath.Child("name"), p.Name, msg))
		}
		if names[p.Name] {
			errs = append(errs, field.Duplicate(pPath.Child("name"), p.Name))
		}
		names[p.Name] = true
		errs = append(errs, metav1validation.ValidateLabelSelector(&p.SeedSelector,
			metav1validation.LabelSelectorValidationOptions{}, pPath.Child("seedSelector"))...)
		if len(p.SeedSelector.MatchLabels) == 0 && len(p.SeedSelector.MatchExpressions) == 0 {
			errs = append(errs, field.Required(pPath.Child("seedSelector"), "a pool must select its seeds; an empty selector would take every seed"))
		}
		m := p.ManagedSeedSet
		if m == nil {
			continue
		}
		mPath := pPath.Child("managedSeedSet")
		if c.API != APIGardener {
			errs = append(errs, field.Forbidden(mPath, "ManagedSeedSets are scaled on core.gardener.cloud only"))
		}
		for _, msg := range validation.IsDNS1123Subdomain(m.Name) {
			errs = append(errs, field.Invalid(mPath.Child("name"), m.Name, msg))
		}
		for _, msg := range validation.IsDNS1123Label(m.Namespace) {
			errs = append(errs, field.Invalid(mPath.Child("namespace"), m.Namespace, msg))
		}
		if key := m.Namespace + "/" + m.Name; sets[key] {
			errs = append(errs, field.Duplicate(mPath, key))
		} else {
			sets[key] = true
		}
		if m.MinReplicas < 1 {
			errs = append(errs, field.Invalid(mPath.Child("minReplicas"), m.MinReplicas, "must be at least 1"))
		}
		if m.MaxReplicas < m.MinReplicas {
			errs = append(errs, field.Invalid(mPath.Child("maxReplicas"), m.MaxReplicas, "must be at least minReplicas"))
		}
		if m.CoolDown.Duration <= 0 {
			errs = append(errs, field.Invalid(mPath.Child("coolDown"), m.CoolDown.Duration.String(), "must be greater than zero"))
		}
		if l := m.ScaleIn.LowUtilisation; l < 1 || l > 100 {
			errs = append(errs, field.Invalid(mPath.Child("scaleIn", "lowUtilisation"), l, "must be a percentage from 1 to 100"))
		}
		if m.ScaleIn.After.Duration <= 0 {
			errs = append(errs, field.Invalid(mPath.Child("scaleIn", "after"), m.ScaleIn.After.Duration.String(), "must be greater than zero"))
		}
	}
	return errs
}

// validateResourceList checks that every resource name is a qualified name and
// every amount is non-negative; shoots are counted, so their amount must be a
// whole number.
func validateResourceList(fldPath *field.Path, list corev1.ResourceList) field.ErrorList {
	var errs field.ErrorList
	for name, q := range list {
		p := fldPath.Key(string(name))
		for _, msg := range validation.IsQualifiedName(string(name)) {
			errs = append(errs, field.Invalid(p, string(name), msg))
		}
		if q.Sign() < 0 {
			errs = append(errs, field.Invalid(p, q.String(), "must not be negative"))
		}
		if name == corev1alpha1.ResourceShoots && q.MilliValue()%1000 != 0 {
			errs = append(errs, field.Invalid(p, q.String(), "must be a whole number of shoots"))
		}
	}
	return errs
}
