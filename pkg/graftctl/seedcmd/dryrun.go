package seedcmd

import (
	"fmt"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DryRunStrategy is how a command treats its writes.
type DryRunStrategy int

const (
	// DryRunNone sends writes to the API server.
	DryRunNone DryRunStrategy = iota
	// DryRunClient computes the result locally and sends nothing.
	DryRunClient
	// DryRunServer sends writes with dryRun=All: the API server validates and
	// admits them but persists nothing.
	DryRunServer
)

// DryRunFlag is the name of the flag AddDryRunFlag registers.
const DryRunFlag = "dry-run"

// AddDryRunFlag registers --dry-run on cmd. A bare --dry-run means client, as in kubectl.
func AddDryRunFlag(cmd *cobra.Command) {
	cmd.Flags().String(DryRunFlag, "none",
		`Must be "none", "server", or "client". If client strategy, only print the object that would be sent, without sending it. If server strategy, submit server-side request without persisting the resource.`)
	cmd.Flags().Lookup(DryRunFlag).NoOptDefVal = "client"
}

// DryRunFromCommand reads the --dry-run flag registered by AddDryRunFlag.
func DryRunFromCommand(cmd *cobra.Command) (DryRunStrategy, error) {
	value, err := cmd.Flags().GetString(DryRunFlag)
	if err != nil {
		return DryRunNone, err
	}
	return ParseDryRun(value)
}

// ParseDryRun turns a --dry-run value into a DryRunStrategy.
func ParseDryRun(value string) (DryRunStrategy, error) {
	switch value {
	case "", "none", "false":
		return DryRunNone, nil
	case "client", "true":
		return DryRunClient, nil
	case "server":
		return DryRunServer, nil
	default:
		return DryRunNone, fmt.Errorf(`invalid dry-run value (%v). Must be "none", "server", or "client"`, value)
	}
}

// Suffix is what follows a result line, such as "seed/a tainted (dry run)".
func (s DryRunStrategy) Suffix() string {
	switch s {
	case DryRunClient:
		return " (dry run)"
	case DryRunServer:
		return " (server dry run)"
	default:
		return ""
	}
}

// PatchOptions returns the options for a PATCH under this strategy.
func (s DryRunStrategy) PatchOptions(fieldManager string) metav1.PatchOptions {
	opts := metav1.PatchOptions{FieldManager: fieldManager}
	if s == DryRunServer {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	return opts
}
