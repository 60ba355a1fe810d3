package factory

import (
	"context"
	"errors"

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

// ExitError is an error that makes graftctl exit with Code instead of 1, for
// outcomes a script tells apart (a drain that timed out from one that left
// shoots behind).
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// ExitCode is the code graftctl exits with for err: 0 for none, the code of
// an ExitError, 1 for any other error.
func ExitCode(err error) int {
	var e *ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &e):
		return e.Code
	}
	return 1
}
