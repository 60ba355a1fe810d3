package main

import (
	"context"

	"github.com/spf13/cobra"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/pkg/component"
	"github.com/graft-dev/graft/pkg/descheduler"
)

func main() { component.Main(newCommand()) }

func newCommand() *cobra.Command {
	return component.NewCommand(component.CommandSpec[*configv1alpha1.DeschedulerConfiguration]{
		Name:  "graft-descheduler",
		Kind:  "DeschedulerConfiguration",
		Short: "Evict shoots from seeds that must not host them any more",
		Long: `graft-descheduler clears spec.seedName of shoots that must leave their seed,
so that graft-scheduler places them again:

  NoExecuteTaints (on by default)  shoots on a seed with a NoExecute taint they
                                   do not tolerate, or whose tolerationSeconds ran out
                                   (graftctl drain sets such a taint);
  OverCapacity (off by default)    the excess shoots of a seed using more than its
                                   status.allocatable.shoots, lowest value first.

Every eviction is checked first: another seed must fit the shoot (requireFit),
asked with the strategy, score weights and region ConfigMap namespace that
graft-scheduler publishes on its Lease (schedulerLease) unless set here,
per-pass budgets, a token bucket and maxPendingEvicted bound the pace, and
shoots annotated graft.dev/evict: "false" stay unless a plugin forces it.
With dryRun nothing changes; WouldDeschedule Events tell where shoots would go.
With interval 0 the descheduler makes one pass and exits (for a CronJob).`,
		// Plugin arguments are checked before anything connects, so that a
		// bad file fails at once with every field named.
		Check: func(cfg *configv1alpha1.DeschedulerConfiguration) error {
			_, err := descheduler.DefaultRegistry().Build(cfg.Plugins)
			return err
		},
		Run: func(ctx context.Context, cfg *configv1alpha1.DeschedulerConfiguration, clients component.Clients) error {
			cfg, err := descheduler.ResolveSchedulingConfiguration(ctx, cfg, clients.Lease.CoordinationV1())
			if err != nil {
				return err
			}
			d, err := descheduler.New(cfg, clients, descheduler.Options{})
			if err != nil {
				return err
			}
			return d.Run(ctx)
		},
	})
}
