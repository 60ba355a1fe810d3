package descheduler

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/klog/v2"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/taintclock"
)

// stampTaintClocks writes timeAdded, the time this process first saw it, on
// the seed's NoExecute taints that lack it, in one preconditioned merge patch
// (docs/daemons.md, "Taint stamps"). It returns the seed a pass should
// evaluate: the written one, a fresher one read after a conflict, or the one
// given when nothing was written.
func (d *Descheduler) stampTaintClocks(ctx context.Context, seed *v1alpha1.Seed) *v1alpha1.Seed {
	if d.cfg.DryRun || !taintclock.Unstamped(seed.Spec.Taints) {
		return seed
	}
	if d.sim != nil {
		return d.sim.stamp(seed)
	}
	log := klog.FromContext(ctx).WithValues("seed", seed.Name)
	current := seed
	var stamped []v1alpha1.SeedTaint
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		taints, changed := taintclock.Stamp(current.Spec.Taints, d.state.sighting(current.Name, d.clock.Now()))
		if !changed {
			stamped = nil
			return nil
		}
		// On Gardener timeAdded lives in the graft.dev/taints annotation.
		patch, err := d.api.TaintsPatch(current, taints)
		if err != nil {
			return err
		}
		out, err := d.garden.PatchSeed(ctx, current.Name, patch, metav1.PatchOptions{FieldManager: Name})
		if apierrors.IsConflict(err) {
			if fresh, gerr := d.garden.GetSeed(ctx, current.Name); gerr == nil {
				current = fresh
			}
			return err
		}
		if err != nil {
			return err
		}
		d.state.setOwnSeed(out, d.clock.Now())
		current, stamped = out, taints
		return nil
	})
	switch {
	case err == nil:
		if stamped != nil {
			log.V(2).Info("Recorded when the seed's NoExecute taints were first seen", "taints", formatClocks(stamped))
		}
		return current
	case apierrors.IsNotFound(err):
		return seed
	case ctx.Err() != nil:
		log.V(1).Info("Stamping timeAdded stopped", "err", err)
		return seed
	default:
		log.Error(err, "Stamping timeAdded on the seed's NoExecute taints failed; tolerations count from when this process first saw them")
		return seed
	}
}

// formatClocks renders the NoExecute taints with their timeAdded, for logs.
func formatClocks(taints []v1alpha1.SeedTaint) []string {
	var out []string
	for _, t := range taints {
		if t.TimeAdded != nil && taintclock.Clocked(t) {
			out = append(out, fmt.Sprintf("%s@%s", taintID(t), t.TimeAdded.UTC().Format(time.RFC3339)))
		}
	}
	return out
}
