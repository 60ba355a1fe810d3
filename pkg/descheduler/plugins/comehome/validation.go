package comehome

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/graft-dev/graft/pkg/descheduler/framework"
)

// Validate returns every invalid argument of defaulted arguments.
func Validate(args *Args, fldPath *field.Path) field.ErrorList {
	return framework.ValidateChurn(&args.ChurnArgs, fldPath)
}
