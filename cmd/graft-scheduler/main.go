// Command graft-scheduler binds pending shoots to seeds; see pkg/scheduler.
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
	"github.com/graft-dev/graft/pkg/scheduler"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := newCommand().ExecuteContext(ctx)
	stop()
	klog.Flush()
	if err != nil {
		fmt.Fprintf(os.Stderr, "graft-scheduler: %v\n", err)
		os.Exit(1)
	}
}

func newCommand() *cobra.Command {
	var configPath string
	cmd := &cobra.Command{
		Use:   "graft-scheduler --config FILE",
		Short: "Bind pending shoots to seeds",
		Long: `graft-scheduler watches shoots without spec.seedName that name it (or no
scheduler) and binds each to the seed the shared scheduling algorithm chooses.
Replicas elect a leader through a Lease; only the leader schedules. A lost lease
ends the process, so that it restarts as a standby.`,
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	cmd.Flags().StringVar(&configPath, "config", "", "path of the SchedulerConfiguration file (config.graft.dev/v1alpha1)")
	logOpts := logging.AddFlags(cmd.Flags())
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if configPath == "" {
			return errors.New("--config is required")
		}
		cfg, err := configfile.Load[*configv1alpha1.SchedulerConfiguration](configPath)
		if err != nil {
			return err
		}
		if err := logOpts.Apply(cfg.Logging); err != nil {
			return err
		}
		restConfig, err := clientconn.RESTConfig(cfg.ClientConnection)
		if err != nil {
			return err
		}
		clients, err := clientconn.NewClients(restConfig, scheduler.Name)
		if err != nil {
			return err
		}
		s, err := scheduler.New(cfg, clients, scheduler.Options{})
		if err != nil {
			return err
		}
		return s.Run(cmd.Context())
	}
	return cmd
}
