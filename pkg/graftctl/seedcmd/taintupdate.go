package seedcmd

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
		patch, err := client.API().TaintsPatch(seed, taints)
		if err != nil {
			return err
		}
		result, err = client.PatchSeed(ctx, name, patch, strategy.PatchOptions(FieldManager))
		return err
	})
	return result, changed, err
}

// TaintUpdate is what UpdateSeedTaints wrote, or would write with --dry-run.
type TaintUpdate struct {
	Seed    *corev1alpha1.Seed
	Changed bool
	// Config is the seed's configuration object in the garden (nil: none),
	// ConfigChanged whether its taints changed.
	Config        *garden.SeedConfig
	ConfigChanged bool
	// SpecChanged is whether the Seed's spec.taints changed (on Gardener a
	// PreferNoSchedule taint changes only an annotation).
	SpecChanged bool
}

// Lasting reports whether the update outlives a restart of the seed's
// gardenlet: on Gardener gardenlet rewrites the Seed's spec.taints from its
// configuration, and keeps its annotations.
func (u TaintUpdate) Lasting(api garden.API) bool {
	return api.TaintEditLasts(u.Config, u.SpecChanged)
}

// UpdateSeedTaints edits a seed's taints where they last. On Gardener the
// edit goes first into the seedConfig of the seed's ManagedSeed or Gardenlet,
// when the garden holds one, since gardenlet writes the Seed's spec from it at
// every start; then onto the Seed for the effect now. configEdit is the edit
// of the lasting taints (the Seed's when there is no configuration), seedEdit
// the same change made onto the Seed after its configuration.
func UpdateSeedTaints(ctx context.Context, client garden.Client, name string, strategy DryRunStrategy, configEdit, seedEdit TaintEdit) (TaintUpdate, error) {
	var u TaintUpdate
	var err error
	// graft's API holds no configuration objects: nil, without a request.
	if u.Config, u.ConfigChanged, err = updateConfigTaints(ctx, client, name, strategy, configEdit); err != nil {
		return u, err
	}
	edit := configEdit
	if u.Config != nil && u.Config.HasSeedConfig {
		edit = seedEdit
	}
	u.Seed, u.Changed, err = UpdateTaints(ctx, client, name, strategy, func(seed *corev1alpha1.Seed) ([]corev1alpha1.SeedTaint, bool, error) {
		taints, changed, err := edit(seed)
		api := client.API()
		u.SpecChanged = changed && !api.SameSpecTaints(seed.Spec.Taints, taints)
		return taints, changed, err
	})
	return u, err
}

// updateConfigTaints edits the taints of the seed's configuration object, as
// UpdateTaints does the Seed's: read, edit, preconditioned patch, again on a
// conflict. It returns nil when the garden holds none.
func updateConfigTaints(ctx context.Context, client garden.Client, name string, strategy DryRunStrategy, edit TaintEdit) (*garden.SeedConfig, bool, error) {
	var result *garden.SeedConfig
	var changed bool
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		config, err := client.GetSeedConfig(ctx, name)
		if err != nil || config == nil || !config.HasSeedConfig {
			result = config
			return err
		}
		// The configuration holds keys and values; their effects, and the
		// PreferNoSchedule taints, are the Seed's annotation's.
		seed, err := client.GetSeed(ctx, name)
		if err != nil {
			return err
		}
		held := &corev1alpha1.Seed{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: corev1alpha1.SeedSpec{Taints: garden.GardenerSeedTaints(config.Taints, seed.Annotations[corev1alpha1.AnnotationTaints])}}
		taints, diff, err := edit(held)
		if err != nil {
			return fmt.Errorf("%s: %w", config, err)
		}
		// The configuration changes only where spec.taints does.
		changed = diff && !garden.Gardener.SameSpecTaints(held.Spec.Taints, taints)
		if !diff || strategy == DryRunClient {
			edited := *config
			edited.Taints = taints
			result = &edited
			return nil
		}
		result, err = client.PatchSeedConfigTaints(ctx, config, taints, strategy.PatchOptions(FieldManager))
		return err
	})
	return result, changed, err
}
