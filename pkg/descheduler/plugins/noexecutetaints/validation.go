package noexecutetaints

import (
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Validate returns every invalid argument.
func Validate(args *Args, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := sets.New[string]()
	for i, key := range args.TaintKeys {
		kPath := fldPath.Child("taintKeys").Index(i)
		for _, msg := range validation.IsQualifiedName(key) {
			errs = append(errs, field.Invalid(kPath, key, msg))
		}
		if seen.Has(key) {
			errs = append(errs, field.Duplicate(kPath, key))
		}
		seen.Insert(key)
	}
	return errs
}
