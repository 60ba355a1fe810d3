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
	"github.com/graft-dev/graft/pkg/capacity/annotator"
	"github.com/graft-dev/graft/pkg/component/clientconn"
	"github.com/graft-dev/graft/pkg/component/configfile"
	"github.com/graft-dev/graft/pkg/component/logging"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := newCommand().ExecuteContext(ctx)
	stop()
	klog.Flush()
	if err != nil {
		fmt.Fprintf(os.Stderr, "graft-capacity-annotator: %v\n", err)
		os.Exit(1)
	}
}

func newCommand() *cobra.Command {
	var configPath string
	cmd := &cobra.Command{
		Use:   "graft-capacity-annotator --config FILE",
		Short: "Keep seeds' capacity, allocatable, usage and not-ready taints current",
		Long: `graft-capacity-annotator writes status.capacity, status.allocatable and
status.usage of every seed in the garden: capacity and reserved come from the
configuration, its label-selected overrides and the seed annotations
capacity.graft.dev/shoots and reserved.graft.dev/shoots; usage is the number of
shoots counted on the seed. With healthTaints enabled it also taints seeds that
are not ready with seed.gardener.cloud/not-ready.`,
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	cmd.Flags().StringVar(&configPath, "config", "", "path of the CapacityAnnotatorConfiguration file (config.graft.dev/v1alpha1)")
	logOpts := logging.AddFlags(cmd.Flags())
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if configPath == "" {
			return errors.New("--config is required")
		}
		cfg, err := configfile.Load[*configv1alpha1.CapacityAnnotatorConfiguration](configPath)
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
		return annotator.Run(cmd.Context(), cfg, restConfig, annotator.Options{})
	}
	return cmd
}
