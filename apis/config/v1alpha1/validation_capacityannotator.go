package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
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
