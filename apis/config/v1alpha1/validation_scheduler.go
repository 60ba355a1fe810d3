package v1alpha1

import (
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// maxScoreWeight bounds each score plugin weight so that weighted sums cannot overflow.
const maxScoreWeight = 100

// Validate returns every invalid field of the scheduler configuration.
func (c *SchedulerConfiguration) Validate() field.ErrorList {
	errs := c.CommonConfiguration.Validate(nil)

	switch c.API {
	case APIGraft, APIGardener:
	default:
		errs = append(errs, field.NotSupported(field.NewPath("api"), c.API, []SchedulerAPI{APIGraft, APIGardener}))
	}
	if c.SchedulerName == "" {
		errs = append(errs, field.Required(field.NewPath("schedulerName"), "the scheduler's name"))
	} else {
		for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(c.SchedulerName, false) {
			errs = append(errs, field.Invalid(field.NewPath("schedulerName"), c.SchedulerName, msg))
		}
	}
	switch c.Strategy {
	case StrategySameRegion, StrategyMinimalDistance:
	default:
		errs = append(errs, field.NotSupported(field.NewPath("strategy"), c.Strategy,
			[]SchedulingStrategy{StrategySameRegion, StrategyMinimalDistance}))
	}
	errs = append(errs, validateRegionConfigNamespace(field.NewPath("regionConfigNamespace"), c.RegionConfigNamespace)...)
	if w := c.ScoreWeights; w != nil {
		wPath := field.NewPath("scoreWeights")
		for _, p := range []struct {
			name   string
			weight *int32
		}{
			{"minimalDistance", w.MinimalDistance},
			{"leastAllocated", w.LeastAllocated},
			{"preferNoSchedule", w.PreferNoSchedule},
		} {
			if p.weight != nil && (*p.weight < 0 || *p.weight > maxScoreWeight) {
				errs = append(errs, field.Invalid(wPath.Child(p.name), *p.weight, "must be between 0 and 100"))
			}
		}
	}
	if c.ConcurrentSyncs < 1 {
		errs = append(errs, field.Invalid(field.NewPath("concurrentSyncs"), c.ConcurrentSyncs, "must be at least 1"))
	}
	if d := c.UnschedulableRetryInterval; d != nil && d.Duration < MinUnschedulableRetryInterval {
		errs = append(errs, field.Invalid(field.NewPath("unschedulableRetryInterval"), d.Duration.String(),
			"must be at least "+MinUnschedulableRetryInterval.String()))
	}
	return errs
}
