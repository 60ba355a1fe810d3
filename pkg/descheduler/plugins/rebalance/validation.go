package rebalance

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/graft-dev/graft/pkg/descheduler/framework"
)

// Validate returns every invalid argument of defaulted arguments.
func Validate(args *Args, fldPath *field.Path) field.ErrorList {
	errs := framework.ValidateChurn(&args.ChurnArgs, fldPath)
	high, low := *args.HighUtilisation, *args.LowUtilisation
	for _, m := range []struct {
		name  string
		value int32
	}{{"highUtilisation", high}, {"lowUtilisation", low}} {
		if m.value < 0 || m.value > 100 {
			errs = append(errs, field.Invalid(fldPath.Child(m.name), m.value, "must be between 0 and 100 (percent)"))
		}
	}
	if args.RelativeToMean && (high < 1 || low < 1) {
		errs = append(errs, field.Invalid(fldPath, []int32{high, low}, "relative to the mean, both marks must be at least 1 point from it, or moves would chase the mean they shift"))
	}
	if !args.RelativeToMean && low >= high {
		errs = append(errs, field.Invalid(fldPath.Child("lowUtilisation"), low, "must be below highUtilisation, or a seed could take shoots and give them away again"))
	}
	return errs
}
