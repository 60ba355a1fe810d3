package overcapacity

import (
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

// Validate returns every invalid argument.
func Validate(args *Args, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[v1alpha1.ShootPurpose]bool{}
	for i, p := range args.PurposeOrder {
		pPath := fldPath.Child("purposeOrder").Index(i)
		if !slices.Contains(DefaultPurposeOrder, p) {
			errs = append(errs, field.NotSupported(pPath, p, DefaultPurposeOrder))
		}
		if seen[p] {
			errs = append(errs, field.Duplicate(pPath, p))
		}
		seen[p] = true
	}
	if d := args.MaxDeferral; d != nil && d.Duration < time.Hour {
		errs = append(errs, field.Invalid(fldPath.Child("maxDeferral"), d.Duration.String(), "must be at least 1h"))
	}
	return errs
}
