package seedcmd

import (
	"context"
	"encoding/json"
	"fmt"

	"k8s.io/client-go/util/retry"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"

	"github.com/graft-dev/graft/pkg/garden"
)

// FieldManager is the field manager graftctl's writes (seed taints, a
// migration's shoot bindings) are recorded under.
const FieldManager = "graftctl"

// TaintEdit computes a seed's new taints from the live seed. It returns the new
// list and whether it differs from the current one. It must be a pure function
// of its input: UpdateTaints calls it again after a conflict.
type TaintEdit func(seed *corev1alpha1.Seed) (taints []corev1alpha1.SeedTaint, changed bool, err error)

// UpdateTaints reads the seed, applies edit and writes spec.taints back with a JSON
// merge patch that carries the resourceVersion it read, so that a concurrent
// writer causes a conflict instead of a lost update; on conflict it reads again
// and retries. With the client strategy nothing is sent and the edited copy is
// returned; with the server strategy the API server validates the patch and
// persists nothing. An edit that changes nothing sends nothing. On Gardener
// the taints are written as Gardener's, key and value, and an edit that
// leaves a taint with another effect than NoSchedule is refused.
func UpdateTaints(ctx context.Context, client garden.Client, name string, strategy DryRunStrategy, edit TaintEdit) (*corev1alpha1.Seed, bool, error) {
	var result *corev1alpha1.Seed
	var changed bool
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		seed, err := client.GetSeed(ctx, name)
		if err != nil {
			return err
		}
		taints, diff, err := edit(seed)
		if err != nil {
			return err
		}
		changed = diff
		if !diff || strategy == DryRunClient {
			result = seed.DeepCopy()
			result.Spec.Taints = taints
			return nil
		}
		patch, err := taintsPatch(client.API(), seed.ResourceVersion, taints)
		if err != nil {
			return err
		}
		result, err = client.PatchSeed(ctx, name, patch, strategy.PatchOptions(FieldManager))
		return err
	})
	return result, changed, err
}

// taintsPatch is a merge patch replacing spec.taints as a whole (merge patches
// replace lists) in the API's shape and pinning the resourceVersion it was
// computed from.
func taintsPatch(api garden.API, resourceVersion string, taints []corev1alpha1.SeedTaint) ([]byte, error) {
	list, err := api.SeedTaints(taints)
	if err != nil {
		return nil, err
	}
	if len(taints) == 0 {
		// null deletes the field; an empty list would be stored as [].
		list = nil
	}
	patch := map[string]any{
		"metadata": map[string]any{"resourceVersion": resourceVersion},
		"spec":     map[string]any{"taints": list},
	}
	data, err := json.Marshal(patch)
	if err != nil {
		return nil, fmt.Errorf("encoding the taints patch: %w", err)
	}
	return data, nil
}
