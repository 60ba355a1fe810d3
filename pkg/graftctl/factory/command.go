package factory

import (
	"context"

	"github.com/spf13/cobra"
)

// Options are a command's inputs in kubectl's habit: completed from the
// arguments, flags and the factory, validated before anything is read or
// written, then run.
type Options interface {
	Complete(f Factory, cmd *cobra.Command, args []string) error
	Validate() error
	Run(ctx context.Context) error
}

// RunE is the cobra RunE of a command with options o: Complete, Validate and
// Run, stopping at the first error.
func RunE(f Factory, o Options) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if err := o.Complete(f, cmd, args); err != nil {
			return err
		}
		if err := o.Validate(); err != nil {
			return err
		}
		return o.Run(cmd.Context())
	}
}
