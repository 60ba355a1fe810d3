package seedcmd

import (
	"context"
	"io"

	"github.com/spf13/cobra"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"

	"github.com/graft-dev/graft/pkg/garden"
	"github.com/graft-dev/graft/pkg/graftctl/factory"
)

// Writer is what the commands that change each selected seed (taint, cordon,
// uncordon) share: which seeds, --dry-run, the result printer and the client.
type Writer struct {
	Selection Selection
	DryRun    DryRunStrategy
	Printer   *Printer
	Client    garden.Client
}

// NewWriter returns a Writer with the default result printer.
func NewWriter() Writer {
	return Writer{Printer: NewPrinter()}
}

// AddFlags registers -l/--selector, --dry-run and the output flags.
func (w *Writer) AddFlags(cmd *cobra.Command) {
	w.Selection.AddSelectorFlag(cmd)
	AddDryRunFlag(cmd)
	w.Printer.Flags.AddFlags(cmd)
}

// CompleteDryRun reads --dry-run.
func (w *Writer) CompleteDryRun(cmd *cobra.Command) error {
	var err error
	w.DryRun, err = DryRunFromCommand(cmd)
	return err
}

// CompleteSeeds takes the seed names and obtains the client.
func (w *Writer) CompleteSeeds(f factory.Factory, names []string) error {
	w.Selection.Names = names
	var err error
	w.Client, err = f.Garden()
	return err
}

// Validate checks the seed selection and output format before anything is
// read or written.
func (w *Writer) Validate() error {
	if err := w.Selection.Validate(); err != nil {
		return err
	}
	return w.Printer.Validate()
}

// WriteEach calls write for every selected seed and prints the seed it
// returns with the operation it did, continuing past a failing seed as
// kubectl does. The failures come back together, each on its own line after
// "error: ".
func (w *Writer) WriteEach(ctx context.Context, out io.Writer, write func(name string) (*corev1alpha1.Seed, string, error)) error {
	names, err := w.Selection.Resolve(ctx, w.Client)
	if err != nil {
		return err
	}
	var errs []error
	for _, name := range names {
		seed, operation, err := write(name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if err := w.Printer.Print(out, seed, operation, w.DryRun); err != nil {
			errs = append(errs, err)
		}
	}
	return utilerrors.Flatten(utilerrors.NewAggregate(errs))
}
