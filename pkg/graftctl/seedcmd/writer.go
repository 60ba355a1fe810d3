package seedcmd

import (
	"context"
	"fmt"
	"io"
	"strings"

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

// Outcome is what a command did to one seed, and the past-tense verb printed
// for it ("tainted", "already cordoned").
type Outcome struct {
	TaintUpdate
	Operation string
}

// WriteEach calls write for every selected seed and prints what it wrote (the
// seed's configuration object, then the seed) with the operation it did,
// continuing past a failing seed as kubectl does. The failures come back
// together, each on its own line after "error: ". On Gardener it warns once,
// on errOut, of the seeds whose change lasts only until gardenlet restarts.
func (w *Writer) WriteEach(ctx context.Context, out, errOut io.Writer, write func(name string) (Outcome, error)) error {
	names, err := w.Selection.Resolve(ctx, w.Client)
	if err != nil {
		return err
	}
	var errs []error
	var passing []string
	for _, name := range names {
		o, err := write(name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if o.Config != nil && o.Config.HasSeedConfig {
			if err := w.Printer.PrintName(out, o.Config.String(), o.Operation, w.DryRun); err != nil {
				errs = append(errs, err)
			}
		}
		if err := w.Printer.Print(out, o.Seed, o.Operation, w.DryRun); err != nil {
			errs = append(errs, err)
		}
		if o.Changed && !o.Lasting(w.Client.API()) {
			passing = append(passing, name)
		}
	}
	WarnPassing(errOut, passing)
	return utilerrors.Flatten(utilerrors.NewAggregate(errs))
}

// WarnPassing tells, once, that the taints just written onto these seeds'
// Seeds last only until gardenlet restarts, and where to make them last.
func WarnPassing(errOut io.Writer, seeds []string) {
	if len(seeds) == 0 {
		return
	}
	fmt.Fprintf(errOut, "Warning: seed(s) %s: no ManagedSeed or Gardenlet in namespace %s holds their gardenlet configuration, "+
		"so the change is made to the Seed alone and lasts only until gardenlet next starts and writes its configured taints back. "+
		"To keep it, change seedConfig.spec.taints in the configuration that gardenlet is deployed with.\n",
		strings.Join(seeds, ", "), corev1alpha1.GardenNamespace)
}
