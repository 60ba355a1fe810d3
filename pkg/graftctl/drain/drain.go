package drain

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/clock"

	"github.com/graft-dev/client-go/clientset/versioned"
	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"

	"github.com/graft-dev/graft/pkg/algorithm"
	"github.com/graft-dev/graft/pkg/graftctl/factory"
	"github.com/graft-dev/graft/pkg/graftctl/garden"
	"github.com/graft-dev/graft/pkg/graftctl/livelandscape"
	"github.com/graft-dev/graft/pkg/graftctl/seedcmd"
	"github.com/graft-dev/graft/pkg/schedulingconfig"
)

const long = `Drain a seed in preparation for maintenance or deletion.

The seed is first cordoned (seed.gardener.cloud/unschedulable:NoSchedule), so
that no new shoot is placed on it, and then marked for eviction with
seed.gardener.cloud/unschedulable:NoExecute. graft-descheduler evicts every
shoot that does not tolerate that taint and the scheduler places it on another
seed. Shoots that tolerate the taint stay; those that tolerate it for a limited
time (tolerationSeconds) leave when that time is up, counted from the taint's
timeAdded, which drain records when it adds the taint (running drain again on
a drained seed keeps it).

With --wait (the default) graftctl follows the seed's shoots and prints each
move until every shoot that has to leave runs on another seed. It checks the
descheduler's leader-election Lease first and while waiting, and stops with an
error when the descheduler is not running instead of waiting forever. When
--timeout passes first, it lists the shoots left and why, and exits non-zero.

With --dry-run nothing is changed: graftctl prints, for every shoot on the
seed, where the scheduling algorithm would place it now, or why it cannot move.

The algorithm is asked with the scheduling configuration graft-scheduler
publishes on its leader-election Lease (--scheduler-lease-namespace,
--scheduler-lease-name), or with --strategy and --score-weight when given;
a line says which one was used.

'graftctl uncordon' undoes a drain.`

const example = `  # Drain seed "aws-eu1" and follow its shoots until they have all moved
  graftctl drain aws-eu1

  # Give up after ten minutes, listing the shoots left and why
  graftctl drain aws-eu1 --timeout=10m

  # Only mark the seed; graft-descheduler moves the shoots in the background
  graftctl drain aws-eu1 --wait=false

  # Show where every shoot would go, changing nothing
  graftctl drain aws-eu1 --dry-run`

// Options are the inputs of `graftctl drain`.
type Options struct {
	SeedName       string
	Wait           bool
	Timeout        time.Duration
	DryRun         seedcmd.DryRunStrategy
	LeaseName      string
	LeaseNamespace string
	// LeaseCheckInterval is how often the descheduler's Lease is re-read while waiting.
	LeaseCheckInterval time.Duration
	// Scheduling chooses the scheduling configuration for --dry-run and the
	// reasons given for shoots left after a timeout: the one graft-scheduler
	// publishes on its Lease unless flags override it.
	Scheduling *schedulingconfig.Flags
	// RegionConfigNamespace is where region ConfigMaps are read from, the
	// scheduler's regionConfigNamespace.
	RegionConfigNamespace string

	Graft versioned.Interface
	Kube  kubernetes.Interface
	Clock clock.WithTicker
	genericiooptions.IOStreams

	// choice is the scheduling configuration, once chosen.
	choice *schedulingconfig.Choice
}

// NewCommand returns `graftctl drain`.
func NewCommand(f factory.Factory, streams genericiooptions.IOStreams) *cobra.Command {
	o := &Options{
		Wait:               true,
		LeaseName:          "graft-descheduler",
		LeaseNamespace:     corev1alpha1.GardenNamespace,
		LeaseCheckInterval: 10 * time.Second,
		Scheduling:         schedulingconfig.NewFlags(),
		Clock:              clock.RealClock{},
		IOStreams:          streams,
	}
	cmd := &cobra.Command{
		Use:                   "drain NAME",
		DisableFlagsInUseLine: true,
		Short:                 "Drain seed in preparation for maintenance",
		Long:                  long,
		Example:               example,
		ValidArgsFunction: func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return seedcmd.CompleteSeedNames(f)(cmd, args, toComplete)
		},
		RunE: factory.RunE(f, o),
	}
	flags := cmd.Flags()
	flags.BoolVar(&o.Wait, "wait", o.Wait, "Follow the seed's shoots until every shoot that has to leave runs on another seed.")
	flags.DurationVar(&o.Timeout, "timeout", 0, "The length of time to wait before giving up, zero means infinite.")
	flags.StringVar(&o.LeaseName, "descheduler-lease-name", o.LeaseName, "Name of graft-descheduler's leader-election Lease.")
	flags.StringVar(&o.LeaseNamespace, "descheduler-lease-namespace", o.LeaseNamespace, "Namespace of graft-descheduler's leader-election Lease.")
	flags.DurationVar(&o.LeaseCheckInterval, "descheduler-lease-check-interval", o.LeaseCheckInterval, "How often to check graft-descheduler's Lease while waiting.")
	o.Scheduling.AddFlags(flags)
	livelandscape.AddRegionConfigNamespaceFlag(flags, &o.RegionConfigNamespace)
	seedcmd.AddDryRunFlag(cmd)
	return cmd
}

// Complete reads the seed name and flags and obtains the clients.
func (o *Options) Complete(f factory.Factory, cmd *cobra.Command, args []string) error {
	var err error
	if o.DryRun, err = seedcmd.DryRunFromCommand(cmd); err != nil {
		return err
	}
	if len(args) != 1 {
		return fmt.Errorf("exactly one seed name must be specified, got %d", len(args))
	}
	o.SeedName = args[0]
	client, err := f.Garden()
	if err != nil {
		return err
	}
	if client.API() != garden.Graft {
		return fmt.Errorf("graftctl drain works on graft's API (%s) only, not on %s: it evicts with a NoExecute taint, and Gardener's seed taints have no effects, so none evicts a shoot; 'graftctl cordon' keeps new shoots off a Gardener seed", garden.Graft, client.API())
	}
	if o.Graft, err = f.GraftClient(); err != nil {
		return err
	}
	o.Kube, err = f.KubeClient()
	return err
}

// Validate checks the flags.
func (o *Options) Validate() error {
	if o.Timeout < 0 {
		return fmt.Errorf("--timeout must not be negative")
	}
	if o.LeaseCheckInterval <= 0 {
		return fmt.Errorf("--descheduler-lease-check-interval must be positive")
	}
	if err := livelandscape.ValidateRegionConfigNamespace(o.regionConfigNamespace()); err != nil {
		return err
	}
	if o.Scheduling == nil {
		return nil
	}
	return o.Scheduling.Validate()
}

// regionConfigNamespace is the flag's value, garden when the options were
// built without the command.
func (o *Options) regionConfigNamespace() string {
	if o.RegionConfigNamespace == "" {
		return corev1alpha1.GardenNamespace
	}
	return o.RegionConfigNamespace
}

// schedulingConfig is the configuration the algorithm is asked with, chosen
// on first use; that use prints which one it is (and a warning when the
// published one could not be used).
func (o *Options) schedulingConfig(ctx context.Context) algorithm.Config {
	if o.choice == nil {
		flags := o.Scheduling
		if flags == nil {
			flags = schedulingconfig.NewFlags()
		}
		c := flags.Choose(ctx, o.Kube.CoordinationV1())
		if c.Warning != "" {
			fmt.Fprintf(o.ErrOut, "Warning: %s\n", c.Warning)
		}
		o.printf("%s\n", c)
		o.choice = &c
	}
	return o.choice.Config
}

// Run drains the seed.
func (o *Options) Run(ctx context.Context) error {
	if o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Timeout)
		defer cancel()
	}

	// The shoots on the seed before it is tainted: the descheduler may move
	// some of them before the watch below starts, and they still count.
	var before []*corev1alpha1.Shoot
	if o.DryRun == seedcmd.DryRunNone && o.Wait {
		var err error
		if before, err = o.shootsOnSeed(ctx); err != nil {
			return err
		}
	}

	var hadCordon, hadDrain bool
	seed, _, err := seedcmd.UpdateTaints(ctx, garden.NewGraft(o.Graft), o.SeedName, o.DryRun, func(seed *corev1alpha1.Seed) ([]corev1alpha1.SeedTaint, bool, error) {
		hadCordon = seedcmd.HasTaint(seed.Spec.Taints, CordonTaint.Key, CordonTaint.Effect)
		hadDrain = seedcmd.HasTaint(seed.Spec.Taints, DrainTaint.Key, DrainTaint.Effect)
		return DrainedAt(seed.Spec.Taints, o.Clock.Now())
	})
	if err != nil {
		return err
	}
	suffix := o.DryRun.Suffix()
	if hadCordon {
		o.printf("seed/%s already cordoned%s\n", o.SeedName, suffix)
	} else {
		o.printf("seed/%s cordoned%s\n", o.SeedName, suffix)
	}
	if hadDrain {
		o.printf("seed/%s already marked for eviction (%s)%s\n", o.SeedName, helper.FormatTaint(DrainTaint), suffix)
	} else {
		o.printf("seed/%s marked for eviction (%s)%s\n", o.SeedName, helper.FormatTaint(DrainTaint), suffix)
	}
	if o.DryRun != seedcmd.DryRunNone {
		return o.reportPlacements(ctx, seed)
	}
	if !o.Wait {
		return nil
	}
	return o.wait(ctx, seed, before)
}

func (o *Options) printf(format string, args ...any) {
	fmt.Fprintf(o.Out, format, args...)
}
