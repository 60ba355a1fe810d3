package taint

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/utils/clock"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"

	"github.com/graft-dev/graft/pkg/graftctl/factory"
	"github.com/graft-dev/graft/pkg/graftctl/seedcmd"
)

const long = `Update the taints on one or more seeds.

 * A taint consists of a key, value, and effect. As an argument here, it is expressed as key=value:effect.
 * The key must begin with a letter or number, and may contain letters, numbers, hyphens, dots, and underscores, up to 253 characters.
 * Optionally, the key can begin with a DNS subdomain prefix and a single '/', like example.com/my-app.
 * The value is optional. If given, it must begin with a letter or number, and may contain letters, numbers, hyphens, dots, and underscores, up to 63 characters.
 * The effect must be NoSchedule, PreferNoSchedule or NoExecute.
 * A shoot that does not tolerate a NoExecute taint is evicted from the seed by graft-descheduler.
 * An added NoExecute taint records when it was added (timeAdded): a shoot's toleration with
   tolerationSeconds runs out that long after it. --overwrite with the same key, value and effect
   keeps the taint and its time; a new value is a new taint with a new time. Other effects record no time.
 * On Gardener, whose seed taints are a key and a value, a NoSchedule or NoExecute taint is written to
   spec.taints (of the seed's ManagedSeed or Gardenlet too, when it has one) and its effect to the
   seed's annotation graft.dev/taints; a PreferNoSchedule taint to the annotation alone, which
   Gardener's own scheduler does not read.`

const example = `  # Taint seed 'aws-eu1' with key 'dedicated', value 'team-a' and effect 'NoSchedule'
  # If a taint with that key and effect already exists, --overwrite replaces its value
  graftctl taint seed aws-eu1 dedicated=team-a:NoSchedule

  # Remove from seed 'aws-eu1' the taint with key 'dedicated' and effect 'NoSchedule'
  graftctl taint seed aws-eu1 dedicated:NoSchedule-

  # Remove from seed 'aws-eu1' all the taints with key 'dedicated'
  graftctl taint seed aws-eu1 dedicated-

  # Taint every seed labelled env=canary, checking with the API server first
  graftctl taint seed -l env=canary maintenance:PreferNoSchedule --dry-run=server`

// Options are the inputs of `graftctl taint`.
type Options struct {
	seedcmd.Writer
	Overwrite bool
	Changes   seedcmd.TaintChanges

	// Clock gives the time recorded on added NoExecute taints.
	Clock clock.PassiveClock
	genericiooptions.IOStreams
}

// NewCommand returns `graftctl taint`.
func NewCommand(f factory.Factory, streams genericiooptions.IOStreams) *cobra.Command {
	o := &Options{Writer: seedcmd.NewWriter(), Clock: clock.RealClock{}, IOStreams: streams}
	complete := seedcmd.CompleteSeedNames(f)
	cmd := &cobra.Command{
		Use:                   "taint seed NAME... KEY_1=VAL_1:TAINT_EFFECT_1 ... KEY_N=VAL_N:TAINT_EFFECT_N",
		DisableFlagsInUseLine: true,
		Short:                 "Update the taints on one or more seeds",
		Long:                  long,
		Example:               example,
		ValidArgsFunction: func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			if len(args) == 0 {
				return []string{"seed"}, cobra.ShellCompDirectiveNoFileComp
			}
			return complete(cmd, args[1:], toComplete)
		},
		RunE: factory.RunE(f, o),
	}
	o.Writer.AddFlags(cmd)
	o.Selection.AddAllFlag(cmd)
	cmd.Flags().BoolVar(&o.Overwrite, "overwrite", false, "If true, allow taints to be overwritten, otherwise reject taint updates that overwrite existing taints.")
	return cmd
}

// Complete splits the arguments into the resource type, seed names and taint
// changes, and obtains the client.
func (o *Options) Complete(f factory.Factory, cmd *cobra.Command, args []string) error {
	if err := o.CompleteDryRun(cmd); err != nil {
		return err
	}
	if len(args) == 0 {
		return fmt.Errorf("one or more resources must be specified as <resource> <name>")
	}
	if err := checkResource(args[0]); err != nil {
		return err
	}
	var names, taintArgs []string
	for _, arg := range args[1:] {
		switch {
		case seedcmd.IsTaintArg(arg):
			taintArgs = append(taintArgs, arg)
		case len(taintArgs) > 0:
			return fmt.Errorf("all resources must be specified before taint changes: %s", arg)
		default:
			names = append(names, arg)
		}
	}
	if len(taintArgs) == 0 {
		return fmt.Errorf("at least one taint update is required")
	}
	var err error
	if o.Changes, err = seedcmd.ParseTaints(taintArgs); err != nil {
		return err
	}
	return o.CompleteSeeds(f, names)
}

// checkResource accepts the spellings of the seed resource, as kubectl accepts
// node, nodes and no for `kubectl taint`.
func checkResource(resource string) error {
	if seedcmd.ResourceOf(resource) == seedcmd.Seeds {
		return nil
	}
	return fmt.Errorf("invalid resource type %s, only seed types are supported", resource)
}

// Run applies the taint changes to every selected seed, continuing past a
// failing seed as kubectl does and returning the failures together.
func (o *Options) Run(ctx context.Context) error {
	return o.WriteEach(ctx, o.Out, o.ErrOut, func(name string) (seedcmd.Outcome, error) {
		var operation seedcmd.TaintOperation
		edit := func(overwrite bool, record bool) seedcmd.TaintEdit {
			return func(seed *corev1alpha1.Seed) ([]corev1alpha1.SeedTaint, bool, error) {
				op, taints, err := seedcmd.ApplyTaints(seed.Name, seed.Spec.Taints, o.Changes, overwrite, o.Clock.Now())
				if record {
					operation = op
				}
				return taints, err == nil, err
			}
		}
		// After the lasting taints, the Seed only follows them: a taint it
		// already has is no reason to refuse.
		u, err := seedcmd.UpdateSeedTaints(ctx, o.Client, name, o.DryRun, edit(o.Overwrite, true), edit(true, false))
		return seedcmd.Outcome{TaintUpdate: u, Operation: string(operation)}, err
	})
}
