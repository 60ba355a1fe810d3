package get

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/client-go/kubernetes"

	"github.com/graft-dev/client-go/clientset/versioned/scheme"
	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"

	"github.com/graft-dev/graft/pkg/garden"
	"github.com/graft-dev/graft/pkg/graftctl/factory"
	"github.com/graft-dev/graft/pkg/graftctl/livelandscape"
	"github.com/graft-dev/graft/pkg/graftctl/seedcmd"
)

const example = `  # List all seeds with their readiness, usage and taints
  graftctl get seeds

  # List seeds with more columns
  graftctl get seeds -o wide

  # List the shoots of the current namespace, or of all namespaces
  graftctl get shoots
  graftctl get shoots -A

  # Show one shoot as YAML
  graftctl get shoot my-cluster -n garden-dev -o yaml`

// Options are the inputs of `graftctl get`.
type Options struct {
	PrintFlags    *genericclioptions.PrintFlags
	Selector      string
	AllNamespaces bool
	NoHeaders     bool
	ShowLabels    bool

	// Forecast and RegionConfigNamespace serve the forecast columns of
	// seeds in -o wide.
	Forecast              *livelandscape.ForecastFlags
	RegionConfigNamespace string

	kind      seedcmd.Resource
	names     []string
	namespace string
	client    garden.Client
	// kube reads the Leases and region ConfigMaps for -o wide; nil when
	// there is no client.
	kube kubernetes.Interface
	genericiooptions.IOStreams
}

// NewCommand returns `graftctl get`.
func NewCommand(f factory.Factory, streams genericiooptions.IOStreams) *cobra.Command {
	o := &Options{PrintFlags: genericclioptions.NewPrintFlags("").WithTypeSetter(scheme.Scheme), Forecast: livelandscape.NewForecastFlags(), IOStreams: streams}
	completeSeeds := seedcmd.CompleteSeedNames(f)
	cmd := &cobra.Command{
		Use:                   "get (seeds|shoots) [NAME...] [flags]",
		DisableFlagsInUseLine: true,
		Short:                 "Display seeds or shoots",
		Long: `Display seeds or shoots.

Seeds show READY (GardenletReady, and BackupBucketsReady for seeds with backup),
PROVIDER, REGION, USAGE/ALLOCATABLE (shoots counted on the seed against the
shoots it may hold), TAINTS and AGE; -o wide adds ZONES, VISIBLE, CAPACITY,
LAST-OPERATION, POOLS (the pools graft-capacity-annotator publishes that the seed
is in) and FULL-IN (when the first of the seed's region and pools is full, at
the rate new shoots came over the annotator's window). Shoots show SEED,
PROVIDER, REGION, PURPOSE and STATUS (the state of the last operation, or
Pending while unscheduled).`,
		Example: example,
		ValidArgsFunction: func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			if len(args) == 0 {
				return []string{"seeds", "shoots"}, cobra.ShellCompDirectiveNoFileComp
			}
			if r, err := parseKind(args[0]); err == nil && r == seedcmd.Seeds {
				return completeSeeds(cmd, args[1:], toComplete)
			}
			return nil, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: factory.RunE(f, o),
	}
	o.PrintFlags.AddFlags(cmd)
	cmd.Flags().Lookup("output").Usage = "Output format. One of: (json, yaml, name, wide, go-template, go-template-file, template, templatefile, jsonpath, jsonpath-as-json, jsonpath-file)."
	cmd.Flags().StringVarP(&o.Selector, "selector", "l", "", "Selector (label query) to filter on, supports '=', '==', '!=', 'in', 'notin'.(e.g. -l key1=value1,key2=value2).")
	cmd.Flags().BoolVarP(&o.AllNamespaces, "all-namespaces", "A", false, "If present, list shoots across all namespaces. Namespace in current context is ignored even if specified with --namespace.")
	cmd.Flags().BoolVar(&o.NoHeaders, "no-headers", false, "When using the default or wide output format, don't print headers.")
	cmd.Flags().BoolVar(&o.ShowLabels, "show-labels", false, "When printing, show all labels as the last column.")
	o.Forecast.AddFlags(cmd.Flags())
	livelandscape.AddRegionConfigNamespaceFlag(cmd.Flags(), &o.RegionConfigNamespace)
	return cmd
}

func parseKind(arg string) (seedcmd.Resource, error) {
	if r := seedcmd.ResourceOf(arg); r != seedcmd.UnknownResource {
		return r, nil
	}
	return seedcmd.UnknownResource, fmt.Errorf("the server doesn't have a resource type %q: graftctl gets seeds or shoots", arg)
}

// Complete reads the resource type, names and namespace.
func (o *Options) Complete(f factory.Factory, _ *cobra.Command, args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("you must specify the type of resource to get: seeds or shoots")
	}
	var err error
	if o.kind, err = parseKind(args[0]); err != nil {
		return err
	}
	o.names = args[1:]
	if o.namespace, _, err = f.Namespace(); err != nil {
		return err
	}
	if o.client, err = f.Garden(); err != nil {
		return err
	}
	o.kube, _ = f.KubeClient() // -o wide says so when there is none
	return nil
}

// Validate checks flag combinations and the output format.
func (o *Options) Validate() error {
	if len(o.names) > 0 && o.Selector != "" {
		return fmt.Errorf("name cannot be provided when a selector is specified")
	}
	if err := livelandscape.ValidateRegionConfigNamespace(o.RegionConfigNamespace); err != nil {
		return err
	}
	if o.wide() || o.table() {
		return nil
	}
	_, err := o.PrintFlags.ToPrinter()
	return err
}

func (o *Options) format() string {
	if o.PrintFlags.OutputFormat == nil {
		return ""
	}
	return *o.PrintFlags.OutputFormat
}

func (o *Options) wide() bool  { return o.format() == "wide" }
func (o *Options) table() bool { return o.format() == "" }

// Run lists the objects and prints them.
func (o *Options) Run(ctx context.Context) error {
	var list runtime.Object
	var table *metav1.Table
	var err error
	switch o.kind {
	case seedcmd.Seeds:
		var items []corev1alpha1.Seed
		if items, err = o.getSeeds(ctx); err != nil {
			return err
		}
		if o.table() || o.wide() {
			configs := o.seedConfigs(ctx)
			var forecasts map[string]SeedForecast
			if o.wide() {
				forecasts = o.seedForecasts(ctx, items)
			}
			table = SeedTable(items, o.shootCounts(ctx, items), configs, forecasts)
			o.notePassing(items, configs)
		} else {
			list = seedList(items)
		}
	case seedcmd.Shoots:
		var items []corev1alpha1.Shoot
		if items, err = o.getShoots(ctx); err != nil {
			return err
		}
		if o.table() || o.wide() {
			table = ShootTable(items)
		} else {
			list = shootList(items)
		}
	}
	if table != nil {
		return o.printTable(table)
	}
	return o.printObjects(list)
}

func (o *Options) printTable(table *metav1.Table) error {
	if len(table.Rows) == 0 && !o.NoHeaders {
		if o.kind == seedcmd.Shoots && !o.AllNamespaces {
			_, err := fmt.Fprintf(o.ErrOut, "No resources found in %s namespace.\n", o.namespace)
			return err
		}
		_, err := fmt.Fprintln(o.ErrOut, "No resources found")
		return err
	}
	printer := printers.NewTablePrinter(printers.PrintOptions{
		NoHeaders:     o.NoHeaders,
		Wide:          o.wide(),
		WithNamespace: o.kind == seedcmd.Shoots && o.AllNamespaces,
		ShowLabels:    o.ShowLabels,
	})
	return printer.PrintObj(table, o.Out)
}

// printObjects prints a single named object as itself and anything else as a
// list, as kubectl does.
func (o *Options) printObjects(list runtime.Object) error {
	printer, err := o.PrintFlags.ToPrinter()
	if err != nil {
		return err
	}
	items, err := metaItems(list)
	if err != nil {
		return err
	}
	if len(o.names) == 1 && len(items) == 1 {
		return printer.PrintObj(items[0], o.Out)
	}
	if o.format() == "name" {
		// The name printer takes no typed lists: one line per item.
		for _, item := range items {
			if err := printer.PrintObj(item, o.Out); err != nil {
				return err
			}
		}
		return nil
	}
	return printer.PrintObj(list, o.Out)
}

func metaItems(list runtime.Object) ([]runtime.Object, error) {
	switch l := list.(type) {
	case *corev1alpha1.SeedList:
		out := make([]runtime.Object, 0, len(l.Items))
		for i := range l.Items {
			out = append(out, &l.Items[i])
		}
		return out, nil
	case *corev1alpha1.ShootList:
		out := make([]runtime.Object, 0, len(l.Items))
		for i := range l.Items {
			out = append(out, &l.Items[i])
		}
		return out, nil
	}
	return nil, fmt.Errorf("unexpected list type %T", list)
}
