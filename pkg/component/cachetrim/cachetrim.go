package cachetrim

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"
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
	case *v1alpha1.Shoot:
		o.ManagedFields = nil
		internShoot(o)
	case metav1.Object:
		o.SetManagedFields(nil)
	}
	return obj, nil
}

// After returns a transform that runs first and then then on what first
// returned; an error of first is returned as it is. A nil then leaves first
// alone.
func After(first, then cache.TransformFunc) cache.TransformFunc {
	if then == nil {
		return first
	}
	return func(obj any) (any, error) {
		out, err := first(obj)
		if err != nil {
			return nil, err
		}
		return then(out)
	}
}

// Placement is the transform of informers whose readers only count shoots
// per seed and write no shoot back (graft-capacity-annotator): of a Shoot it
// keeps what identifies it (namespace, name, UID, which tells the
// forecast's departures apart, and the resourceVersion the fence's catch-up
// compares), where it is placed (spec.seedName and
// status.seedName, what algorithm.ShootCounter reads), and its region and
// creation time (the forecast's arrivals), in a new object, so
// that the decoded one is garbage at once. Other objects get Transform.
func Placement(obj any) (any, error) {
	shoot, ok := obj.(*v1alpha1.Shoot)
	if !ok {
		return Transform(obj)
	}
	kept := &v1alpha1.Shoot{
		ObjectMeta: metav1.ObjectMeta{Namespace: intern(shoot.Namespace), Name: shoot.Name, UID: shoot.UID, ResourceVersion: shoot.ResourceVersion,
			CreationTimestamp: shoot.CreationTimestamp},
		Spec:   v1alpha1.ShootSpec{SeedName: shoot.Spec.SeedName, Region: intern(shoot.Spec.Region)},
		Status: v1alpha1.ShootStatus{SeedName: shoot.Status.SeedName},
	}
	internPtr(kept.Spec.SeedName)
	internPtr(kept.Status.SeedName)
	return kept, nil
}

// Unbound is the transform of informers whose readers need the whole of a
// shoot only while it waits for a seed (graft-scheduler): a shoot with
// spec.seedName only counts on its seeds, and gets Placement; any other
// object gets Transform. A shoot that loses its seed arrives whole again
// with the update that cleared spec.seedName.
func Unbound(obj any) (any, error) {
	if shoot, ok := obj.(*v1alpha1.Shoot); ok && helper.ShootBound(shoot) {
		return Placement(shoot)
	}
	return Transform(obj)
}
