package schedulingconfig

import (
	"context"
	"errors"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
	"k8s.io/klog/v2"
)

// Wait reads the configuration published on the Lease namespace/name every
// poll until there is one, timeout passes (0: until ctx ends) or the Lease
// holds one this build cannot use (a *ReadError, returned at once). Anything
// else (no Lease or annotation yet, an API server restarting, RBAC caches not
// yet warm) is waited out and logged each time the reason changes; last is
// the last such reason when it gives up.
func Wait(ctx context.Context, leases coordinationv1client.LeasesGetter, namespace, name, reader string, poll, timeout time.Duration, log klog.Logger) (published Published, last error, err error) {
	condition := func(ctx context.Context) (bool, error) {
		p, err := Read(ctx, leases, namespace, name, reader)
		var re *ReadError
		switch {
		case err == nil:
			published = p
			return true, nil
		case errors.As(err, &re) && re.Invalid:
			return false, err
		}
		if last == nil || last.Error() != err.Error() {
			log.Info("Waiting for graft-scheduler's scheduling configuration", "lease", namespace+"/"+name, "reason", err.Error())
		}
		last = err
		return false, nil
	}
	if timeout > 0 {
		err = wait.PollUntilContextTimeout(ctx, poll, timeout, true, condition)
	} else {
		err = wait.PollUntilContextCancel(ctx, poll, true, condition)
	}
	return published, last, err
}
