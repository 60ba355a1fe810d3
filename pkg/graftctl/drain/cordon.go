package drain

import (
	"context"
	"encoding/json"
	"maps"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/util/retry"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"

	"github.com/graft-dev/graft/pkg/garden"
	"github.com/graft-dev/graft/pkg/graftctl/factory"
	"github.com/graft-dev/graft/pkg/graftctl/seedcmd"
	"github.com/graft-dev/graft/pkg/taintclock"
)

// CordonTaint keeps new shoots off a seed; shoots already there stay.
var CordonTaint = corev1alpha1.SeedTaint{Key: corev1alpha1.SeedTaintUnschedulable, Effect: corev1alpha1.TaintEffectNoSchedule}

// DrainTaint makes graft-descheduler evict the shoots that do not tolerate it.
var DrainTaint = corev1alpha1.SeedTaint{Key: corev1alpha1.SeedTaintUnschedulable, Effect: corev1alpha1.TaintEffectNoExecute}

// CordonOptions are the inputs of `graftctl cordon` and `graftctl uncordon`.
type CordonOptions struct {
	// Cordon is true for cordon, false for uncordon.
	Cordon bool
	seedcmd.Writer
	genericiooptions.IOStreams
}

// NewCordonCommand returns `graftctl cordon`.
func NewCordonCommand(f factory.Factory, streams genericiooptions.IOStreams) *cobra.Command {
	return newCordonCommand(f, streams, true, &cobra.Command{
		Use:                   "cordon NAME",
		DisableFlagsInUseLine: true,
		Short:                 "Mark seed as unschedulable",
		Long: `Mark seed as unschedulable: add the taint seed.gardener.cloud/unschedulable:NoSchedule.

The scheduler places no new shoot on a cordoned seed unless the shoot tolerates
the taint; shoots already on the seed stay. Use 'graftctl drain' to move them.`,
		Example: `  # Mark seed "aws-eu1" as unschedulable
  graftctl cordon aws-eu1

  # Mark every seed labelled env=canary as unschedulable
  graftctl cordon -l env=canary`,
	})
}

// NewUncordonCommand returns `graftctl uncordon`.
func NewUncordonCommand(f factory.Factory, streams genericiooptions.IOStreams) *cobra.Command {
	return newCordonCommand(f, streams, false, &cobra.Command{
		Use:                   "uncordon NAME",
		DisableFlagsInUseLine: true,
		Short:                 "Mark seed as schedulable",
		Long: `Mark seed as schedulable: remove the taint seed.gardener.cloud/unschedulable,
both its NoSchedule (cordon) and its NoExecute (drain) variants.`,
		Example: `  # Mark seed "aws-eu1" as schedulable
  graftctl uncordon aws-eu1`,
	})
}

func newCordonCommand(f factory.Factory, streams genericiooptions.IOStreams, cordon bool, cmd *cobra.Command) *cobra.Command {
	o := &CordonOptions{Cordon: cordon, Writer: seedcmd.NewWriter(), IOStreams: streams}
	cmd.ValidArgsFunction = seedcmd.CompleteSeedNames(f)
	cmd.RunE = factory.RunE(f, o)
	o.Writer.AddFlags(cmd)
	return cmd
}

// Complete reads the seed names and flags and obtains the client.
func (o *CordonOptions) Complete(f factory.Factory, cmd *cobra.Command, args []string) error {
	if err := o.CompleteDryRun(cmd); err != nil {
		return err
	}
	return o.CompleteSeeds(f, args)
}

// Run cordons or uncordons every selected seed.
func (o *CordonOptions) Run(ctx context.Context) error {
	return o.WriteEach(ctx, o.Out, o.ErrOut, func(name string) (seedcmd.Outcome, error) {
		return Set(ctx, o.Client, name, o.Cordon, o.DryRun)
	})
}

// Set cordons (cordon true) or uncordons a seed where that lasts
// (seedcmd.UpdateSeedTaints) and says what it did: cordoned, already
// cordoned, uncordoned or already uncordoned.
func Set(ctx context.Context, client garden.Client, name string, cordon bool, strategy seedcmd.DryRunStrategy) (seedcmd.Outcome, error) {
	edit := func(seed *corev1alpha1.Seed) ([]corev1alpha1.SeedTaint, bool, error) {
		if cordon {
			return Cordoned(seed.Spec.Taints)
		}
		return Uncordoned(seed.Spec.Taints)
	}
	u, err := seedcmd.UpdateSeedTaints(ctx, client, name, strategy, edit, edit)
	if err != nil {
		return seedcmd.Outcome{}, err
	}
	if !cordon {
		// An uncordoned seed is drained no more. The deadline goes after the
		// drain taint: without it, a drain in windows would be a plain one.
		if _, _, err := SetDrainDeadline(ctx, client, name, nil, strategy); err != nil {
			return seedcmd.Outcome{}, err
		}
	}
	// The word follows the lasting change: a cordon the Seed alone had
	// (gone at gardenlet's restart) is not "already" there.
	changed := u.Changed || u.ConfigChanged
	word := map[[2]bool]string{{true, true}: "cordoned", {true, false}: "already cordoned",
		{false, true}: "uncordoned", {false, false}: "already uncordoned"}[[2]bool{cordon, changed}]
	return seedcmd.Outcome{TaintUpdate: u, Operation: word}, nil
}

// Cordoned returns taints with the cordon taint added, and whether it was missing.
func Cordoned(taints []corev1alpha1.SeedTaint) ([]corev1alpha1.SeedTaint, bool, error) {
	return withTaint(taints, CordonTaint)
}

// DrainedAt returns taints with the cordon and drain taints, and whether
// either was missing. A drain taint it adds records now as its timeAdded, the
// moment the tolerations of the seed's shoots start to count; one already on
// the seed is kept with its time. The cordon taint (NoSchedule) records none.
func DrainedAt(taints []corev1alpha1.SeedTaint, now time.Time) ([]corev1alpha1.SeedTaint, bool, error) {
	cordoned, c1, _ := withTaint(taints, CordonTaint)
	drained, c2, _ := withTaint(cordoned, taintclock.Added(DrainTaint, now))
	return drained, c1 || c2, nil
}

// Uncordoned returns taints without any seed.gardener.cloud/unschedulable
// taint, and whether one was there.
func Uncordoned(taints []corev1alpha1.SeedTaint) ([]corev1alpha1.SeedTaint, bool, error) {
	kept := make([]corev1alpha1.SeedTaint, 0, len(taints))
	for _, t := range taints {
		if t.Key != corev1alpha1.SeedTaintUnschedulable {
			kept = append(kept, t)
		}
	}
	return kept, len(kept) != len(taints), nil
}

func withTaint(taints []corev1alpha1.SeedTaint, taint corev1alpha1.SeedTaint) ([]corev1alpha1.SeedTaint, bool, error) {
	if seedcmd.HasTaint(taints, taint.Key, taint.Effect) {
		return taints, false, nil
	}
	out := append(make([]corev1alpha1.SeedTaint, 0, len(taints)+1), taints...)
	return append(out, taint), true, nil
}

// SetDrainDeadline records on the seed that its drain waits for maintenance
// windows until deadline (graft.dev/drain-deadline), or, with nil, that it
// does not; one merge patch preconditioned on the resourceVersion read,
// again after a conflict. It returns the seed as it is (or, in a dry run,
// would be) and whether the annotation changed.
func SetDrainDeadline(ctx context.Context, client garden.Client, name string, deadline *time.Time, strategy seedcmd.DryRunStrategy) (*corev1alpha1.Seed, bool, error) {
	var value any // nil removes the annotation
	if deadline != nil {
		value = deadline.UTC().Format(time.RFC3339)
	}
	var result *corev1alpha1.Seed
	var changed bool
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		seed, err := client.GetSeed(ctx, name)
		if err != nil {
			return err
		}
		current, has := seed.Annotations[corev1alpha1.AnnotationDrainDeadline]
		changed = has != (value != nil) || has && current != value
		if !changed || strategy == seedcmd.DryRunClient {
			result = seed.DeepCopy()
			if changed {
				result.Annotations = maps.Clone(result.Annotations)
				if result.Annotations == nil {
					result.Annotations = map[string]string{}
				}
				if value == nil {
					delete(result.Annotations, corev1alpha1.AnnotationDrainDeadline)
				} else {
					result.Annotations[corev1alpha1.AnnotationDrainDeadline] = value.(string)
				}
			}
			return nil
		}
		patch, err := json.Marshal(map[string]any{"metadata": map[string]any{
			"resourceVersion": seed.ResourceVersion,
			"annotations":     map[string]any{corev1alpha1.AnnotationDrainDeadline: value},
		}})
		if err != nil {
			return err
		}
		result, err = client.PatchSeed(ctx, name, patch, strategy.PatchOptions(seedcmd.FieldManager))
		return err
	})
	return result, changed, err
}
