package graftctl

import (
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// NewGraftctlCommand returns the root graftctl command with every subcommand.
func NewGraftctlCommand(streams genericiooptions.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "graftctl",
		Short: "graftctl controls where shoots run in a garden",
		Long: `graftctl taints, cordons and drains seeds, shows seeds and shoots, and
simulates scheduling decisions, in the habits of kubectl.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	flags := cmd.PersistentFlags()
	configFlags := genericclioptions.NewConfigFlags(true).WithDeprecatedPasswordFlag().WithDiscoveryBurst(300).WithDiscoveryQPS(50.0)
	configFlags.AddFlags(flags)

	// Subcommands are added here, one line each.
	_ = configFlags
	return cmd
}
