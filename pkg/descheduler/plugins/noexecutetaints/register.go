package noexecutetaints

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/graft-dev/graft/pkg/descheduler/framework"
)

// Register adds the plugin to a registry.
func Register(r framework.Registry) {
	r.Register(Name, func(raw []byte, fldPath *field.Path) (framework.Plugin, field.ErrorList) {
		args := &Args{}
		if errs := framework.DecodeArgs(raw, args, fldPath); len(errs) > 0 {
			return nil, errs
		}
		if errs := Validate(args, fldPath); len(errs) > 0 {
			return nil, errs
		}
		return New(*args), nil
	})
}
