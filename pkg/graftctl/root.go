package graftctl

import (
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/graft-dev/graft/pkg/graftctl/describe"
	"github.com/graft-dev/graft/pkg/graftctl/drain"
	"github.com/graft-dev/graft/pkg/graftctl/factory"
	"github.com/graft-dev/graft/pkg/graftctl/get"
	"github.com/graft-dev/graft/pkg/graftctl/simulate"
	"github.com/graft-dev/graft/pkg/graftctl/taint"
	"github.com/graft-dev/graft/pkg/graftctl/version"
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

	f := factory.New(configFlags)

	// Subcommands are added here, one line each.
	cmd.AddCommand(taint.NewCommand(f, streams))
	cmd.AddCommand(drain.NewCordonCommand(f, streams))
	cmd.AddCommand(drain.NewUncordonCommand(f, streams))
	cmd.AddCommand(drain.NewCommand(f, streams))
	cmd.AddCommand(get.NewCommand(f, streams))
	cmd.AddCommand(describe.NewCommand(f, streams))
	cmd.AddCommand(simulate.NewCmdSimulate(streams))
	cmd.AddCommand(version.NewCommand(f, streams))
	return cmd
}
