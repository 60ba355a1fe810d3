package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
	"k8s.io/klog/v2"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/pkg/component/clientconn"
	"github.com/graft-dev/graft/pkg/component/configfile"
	"github.com/graft-dev/graft/pkg/component/logging"
	"github.com/graft-dev/graft/pkg/descheduler"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := newCommand().ExecuteContext(ctx)
	stop()
	klog.Flush()
	if err != nil {
		fmt.Fprintf(os.Stderr, "graft-descheduler: %v\n", err)
		os.Exit(1)
	}
}

func newCommand() *cobra.Command {
	var configPath string
	cmd := &cobra.Command{
		Use:   "graft-descheduler --config FILE",
		Short: "Evict shoots from seeds that must not host them any more",
		Long: `graft-descheduler clears spec.seedName of shoots that must leave their seed,
so that graft-scheduler places them again:

  NoExecuteTaints (on by default)  shoots on a seed with a NoExecute taint they
                                   do not tolerate, or whose tolerationSeconds ran out
                                   (graftctl drain sets such a taint);
  OverCapacity (off by default)    the excess shoots of a seed using more than its
                                   status.allocatable.shoots, lowest value first.

Every eviction is checked first: another seed must fit the shoot (requireFit),
per-pass budgets, a token bucket and maxPendingEvicted bound the pace, and
shoots annotated graft.dev/evict: "false" stay unless a plugin forces it.
With dryRun nothing changes; WouldDeschedule Events tell where shoots would go.
With interval 0 the descheduler makes one pass and exits (for a CronJob).`,
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	cmd.Flags().StringVar(&configPath, "config", "", "path of the DeschedulerConfiguration file (config.graft.dev/v1alpha1)")
	logOpts := logging.AddFlags(cmd.Flags())
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if configPath == "" {
			return errors.New("--config is required")
		}
		cfg, err := configfile.Load[*configv1alpha1.DeschedulerConfiguration](configPath)
		if err != nil {
			return err
		}
		// Plugin arguments are checked before anything connects, so that a
		// bad file fails at once with every field named.
		if _, err := descheduler.DefaultRegistry().Build(cfg.Plugins); err != nil {
			return fmt.Errorf("component config %s: %w", configPath, err)
		}
		if err := logOpts.Apply(cfg.Logging); err != nil {
			return err
		}
		restConfig, err := clientconn.RESTConfig(cfg.ClientConnection)
		if err != nil {
			return err
		}
		return descheduler.RunComponent(cmd.Context(), cfg, restConfig, descheduler.RunOptions{})
	}
	return cmd
}
