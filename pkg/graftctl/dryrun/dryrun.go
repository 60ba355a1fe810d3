package dryrun

import (
	"fmt"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Strategy is how a command treats its writes.
type Strategy int

const (
	// None sends writes to the API server.
	None Strategy = iota
	// Client computes the result locally and sends nothing.
	Client
	// Server sends writes with dryRun=All: the API server validates and
	// admits them but persists nothing.
	Server
)

// FlagName is the name of the flag AddFlag registers.
const FlagName = "dry-run"

// AddFlag registers --dry-run on cmd. A bare --dry-run means client, as in kubectl.
func AddFlag(cmd *cobra.Command) {
	cmd.Flags().String(FlagName, "none",
		`Must be "none", "server", or "client". If client strategy, only print the object that would be sent, without sending it. If server strategy, submit server-side request without persisting the resource.`)
	cmd.Flags().Lookup(FlagName).NoOptDefVal = "client"
}

// FromCommand reads the --dry-run flag registered by AddFlag.
func FromCommand(cmd *cobra.Command) (Strategy, error) {
	value, err := cmd.Flags().GetString(FlagName)
	if err != nil {
		return None, err
	}
	return Parse(value)
}

// Parse turns a --dry-run value into a Strategy.
func Parse(value string) (Strategy, error) {
	switch value {
	case "", "none", "false":
		return None, nil
	case "client", "true":
		return Client, nil
	case "server":
		return Server, nil
	default:
		return None, fmt.Errorf(`invalid dry-run value (%v). Must be "none", "server", or "client"`, value)
	}
}

// Suffix is what follows a result line, such as "seed/a tainted (dry run)".
func (s Strategy) Suffix() string {
	switch s {
	case Client:
		return " (dry run)"
	case Server:
		return " (server dry run)"
	default:
		return ""
	}
}

// PatchOptions returns the options for a PATCH under this strategy.
func (s Strategy) PatchOptions(fieldManager string) metav1.PatchOptions {
	opts := metav1.PatchOptions{FieldManager: fieldManager}
	if s == Server {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	return opts
}
