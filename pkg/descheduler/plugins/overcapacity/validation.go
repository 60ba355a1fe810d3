package overcapacity

import (
	"slices"

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
	return errs
}
