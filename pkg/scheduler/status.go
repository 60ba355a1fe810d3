package scheduler

import (
	"context"
	"encoding/json"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/util/retry"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
)

// waitingForSeed reports whether a lastOperation says that the shoot waits
// for a seed: Create/Pending, written when no seed fits, or Migrate/Pending,
// written by graft-descheduler of earlier releases when it evicted a shoot. A
// binding ends either.
func waitingForSeed(op *corev1alpha1.LastOperation) bool {
	return op != nil && op.State == corev1alpha1.LastOperationStatePending &&
		(op.Type == corev1alpha1.LastOperationTypeCreate || op.Type == corev1alpha1.LastOperationTypeMigrate)
}

// clearPending removes the lastOperation of a shoot just bound to seed when it
// says the shoot waits for a seed, as Gardener's binding does. bound is the
// binding's response; the write is preconditioned on its resourceVersion and,
// after a conflict, made only while the shoot is still bound there and
// waiting (docs/daemons.md, "A binding").
func (s *Scheduler) clearPending(ctx context.Context, bound *corev1alpha1.Shoot, seed string) {
	logger := klog.FromContext(ctx).WithValues("shoot", klog.KObj(bound), "seed", seed)
	current := bound
	err := retry.OnError(retry.DefaultRetry, func(err error) bool {
		return ctx.Err() == nil && (apierrors.IsConflict(err) || apierrors.IsServerTimeout(err) ||
			apierrors.IsTimeout(err) || apierrors.IsTooManyRequests(err) || apierrors.IsServiceUnavailable(err))
	}, func() error {
		if ptr.Deref(current.Spec.SeedName, "") != seed || !waitingForSeed(current.Status.LastOperation) {
			return nil
		}
		patch, err := json.Marshal(map[string]any{
			"metadata": map[string]any{"resourceVersion": current.ResourceVersion},
			"status":   map[string]any{"lastOperation": nil},
		})
		if err != nil {
			return err
		}
		_, err = s.garden.PatchShootStatus(ctx, current.Namespace, current.Name, patch)
		if apierrors.IsConflict(err) {
			fresh, getErr := s.garden.GetShoot(ctx, current.Namespace, current.Name)
			if getErr != nil {
				return getErr
			}
			current = fresh
		}
		if err == nil {
			logger.V(2).Info("Cleared the lastOperation that said the shoot waits for a seed")
		}
		return err
	})
	if err != nil && !apierrors.IsNotFound(err) && ctx.Err() == nil {
		logger.Error(err, "Could not clear the Pending lastOperation of the bound shoot")
	}
}
