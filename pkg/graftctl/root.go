package graftctl

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/graft-dev/graft/pkg/garden"
	"github.com/graft-dev/graft/pkg/graftctl/describe"
	"github.com/graft-dev/graft/pkg/graftctl/drain"
	"github.com/graft-dev/graft/pkg/graftctl/factory"
	"github.com/graft-dev/graft/pkg/graftctl/get"
	"github.com/graft-dev/graft/pkg/graftctl/simulate"
	"github.com/graft-dev/graft/pkg/graftctl/taint"
	"github.com/graft-dev/graft/pkg/graftctl/version"
)

// NewGraftctlCommand returns the root graftctl command with every subcommand.
// What it prints to streams is terminal-safe (TerminalSafe).
func NewGraftctlCommand(streams genericiooptions.IOStreams) *cobra.Command {
	streams = TerminalSafe(streams)
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

	var api string
	flags.StringVar(&api, garden.Flag, "", fmt.Sprintf("API of seeds and shoots: %s (graft's own) or %s (a Gardener garden). Empty finds out from the cluster, graft's first when it serves both.", garden.Graft, garden.Gardener))
	_ = cmd.RegisterFlagCompletionFunc(garden.Flag, cobra.FixedCompletions([]string{string(garden.Graft), string(garden.Gardener)}, cobra.ShellCompDirectiveNoFileComp))
	// A wrong value is refused before any command runs, also by the commands
	// that do not read seeds.
	cmd.PersistentPreRunE = func(*cobra.Command, []string) error {
		_, err := garden.ParseAPI(api)
		return err
	}

	f := factory.New(configFlags, &api)

	// Subcommands are added here, one line each.
	cmd.AddCommand(taint.NewCommand(f, streams))
	cmd.AddCommand(drain.NewCordonCommand(f, streams))
	cmd.AddCommand(drain.NewUncordonCommand(f, streams))
	cmd.AddCommand(drain.NewCommand(f, streams))
	cmd.AddCommand(get.NewCommand(f, streams))
	cmd.AddCommand(describe.NewCommand(f, streams))
	cmd.AddCommand(simulate.NewCmdSimulate(f, streams))
	cmd.AddCommand(version.NewCommand(f, streams))
	return cmd
}

// PluginName is the name kubectl gives graftctl installed as the plugin
// kubectl-graft on the PATH.
const PluginName = "kubectl graft"

// ActAs makes cmd present itself as the program named by argv0 calls it:
// installed as kubectl-graft, kubectl runs it for `kubectl graft ...`, and
// its usage lines and examples then say `kubectl graft`.
func ActAs(cmd *cobra.Command, argv0 string) {
	if strings.HasPrefix(filepath.Base(argv0), "kubectl-") {
		if cmd.Annotations == nil {
			cmd.Annotations = map[string]string{}
		}
		cmd.Annotations[cobra.CommandDisplayNameAnnotation] = PluginName
	}
}
