package component

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
)

// CommandSpec describes one daemon's command.
type CommandSpec[T configv1alpha1.Configuration] struct {
	// Name is the binary's name.
	Name string
	// Short and Long are the help texts.
	Short, Long string
	// Kind is the configuration kind the --config file holds, for the help text.
	Kind string
	// Check, when set, inspects the loaded configuration before anything
	// connects, so that a bad file fails at once.
	Check func(cfg T) error
	// Run runs the component until ctx ends or it fails. clients are built
	// from the clientConnection section, with Name as the user agent.
	Run func(ctx context.Context, cfg T, clients Clients) error
}

// NewCommand returns the command for spec: --version prints the version and stops;
// otherwise load, default and validate the file named
// by --config, apply its logging section, build the clients from its
// clientConnection, then run.
func NewCommand[T configv1alpha1.Configuration](spec CommandSpec[T]) *cobra.Command {
	var configPath string
	cmd := &cobra.Command{
		Use:           spec.Name + " --config FILE",
		Short:         spec.Short,
		Long:          spec.Long,
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	cmd.Flags().StringVar(&configPath, "config", "", fmt.Sprintf("path of the %s file (config.graft.dev/v1alpha1)", spec.Kind))
	logOpts := addLoggingFlags(cmd.Flags())
	AddVersionFlag(cmd.Flags())
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if PrintVersionIfRequested(cmd.OutOrStdout(), spec.Name, cmd.Flags()) {
			return nil
		}
		if configPath == "" {
			return errors.New("--config is required")
		}
		cfg, err := LoadConfig[T](configPath)
		if err != nil {
			return err
		}
		if spec.Check != nil {
			if err := spec.Check(cfg); err != nil {
				return fmt.Errorf("component config %s: %w", configPath, err)
			}
		}
		if err := logOpts.Apply(cfg.Common().Logging); err != nil {
			return err
		}
		restConfig, err := RESTConfig(cfg.Common().ClientConnection)
		if err != nil {
			return err
		}
		clients, err := NewClients(restConfig, spec.Name)
		if err != nil {
			return err
		}
		return spec.Run(cmd.Context(), cfg, clients)
	}
	return cmd
}

// Main executes cmd until it returns or the process gets SIGINT or SIGTERM,
// flushes the log, and exits non-zero with the error on one line.
func Main(cmd *cobra.Command) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := cmd.ExecuteContext(ctx)
	stop()
	klog.Flush()
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", cmd.Name(), err)
		os.Exit(1)
	}
}
