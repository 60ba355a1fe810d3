package cachetrim

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

// Transform trims one object on its way into an informer's store (see the
// package documentation for what and why). It changes the object in place,
// as informers allow for the objects they decode, passes objects that are
// not API objects through untouched, and is idempotent, as a transform
// must be.
func Transform(obj any) (any, error) {
	switch o := obj.(type) {
	case *v1alpha1.Seed:
		// graft-capacity-annotator reads who owns status.capacity.
	case metav1.Object:
		o.SetManagedFields(nil)
	}
	return obj, nil
}

// After returns a transform that runs first and then Transform on what it
// returned; an error of first is returned as it is.
func After(first cache.TransformFunc) cache.TransformFunc {
	return func(obj any) (any, error) {
		out, err := first(obj)
		if err != nil {
			return nil, err
		}
		return Transform(out)
	}
}
