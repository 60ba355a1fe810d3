package seedcmd

import (
	"fmt"
	"io"

	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/graft-dev/client-go/clientset/versioned/scheme"
	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
)

// Printer prints the outcome of a command for each seed it touched.
type Printer struct {
	Flags *genericclioptions.PrintFlags
}

// NewPrinter returns a Printer whose -o flag accepts json, yaml, name and the
// template formats; without -o it prints "seed/NAME <operation>".
func NewPrinter() *Printer {
	return &Printer{Flags: genericclioptions.NewPrintFlags("").WithTypeSetter(scheme.Scheme)}
}

// Print writes one result. operation is the past-tense verb ("tainted",
// "already cordoned"); strategy adds kubectl's dry-run suffix.
func (p *Printer) Print(out io.Writer, seed *corev1alpha1.Seed, operation string, strategy DryRunStrategy) error {
	if p.Flags.OutputFormat == nil || *p.Flags.OutputFormat == "" {
		_, err := fmt.Fprintf(out, "seed/%s %s%s\n", seed.Name, operation, strategy.Suffix())
		return err
	}
	p.Flags.NamePrintFlags.Operation = operation + strategy.Suffix()
	printer, err := p.Flags.ToPrinter()
	if err != nil {
		return err
	}
	return printer.PrintObj(seed.DeepCopy(), out)
}

// PrintName writes one result for an object graft has no type of (a seed's
// configuration object): its line in the default and name formats, nothing
// in the others, which print the seed.
func (p *Printer) PrintName(out io.Writer, name, operation string, strategy DryRunStrategy) error {
	if f := p.Flags.OutputFormat; f != nil && *f != "" && *f != "name" {
		return nil
	}
	_, err := fmt.Fprintf(out, "%s %s%s\n", name, operation, strategy.Suffix())
	return err
}

// Validate rejects an unknown -o format before anything is changed.
func (p *Printer) Validate() error {
	if p.Flags.OutputFormat == nil || *p.Flags.OutputFormat == "" {
		return nil
	}
	_, err := p.Flags.ToPrinter()
	return err
}
