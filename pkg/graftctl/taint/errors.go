package taint

import utilerrors "k8s.io/apimachinery/pkg/util/errors"

// joinErrors flattens the per-seed errors so that each is printed on its own
// line after "error: ", as kubectl does.
func joinErrors(errs []error) error {
	return utilerrors.Flatten(utilerrors.NewAggregate(errs))
}
