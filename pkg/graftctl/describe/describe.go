package describe

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"

	"github.com/graft-dev/graft/pkg/algorithm"
	"github.com/graft-dev/graft/pkg/garden"
	"github.com/graft-dev/graft/pkg/graftctl/drainplan"
	"github.com/graft-dev/graft/pkg/graftctl/factory"
	"github.com/graft-dev/graft/pkg/graftctl/livelandscape"
	"github.com/graft-dev/graft/pkg/graftctl/seedcmd"
	"github.com/graft-dev/graft/pkg/schedulingconfig"
)

const example = `  # Describe a seed: taints, conditions, capacity and usage, its shoots and
  # why the shoots waiting for a seed do not go to it
  graftctl describe seed aws-eu1

  # Describe a shoot: its placement, its last Events and, if it has no seed,
  # why every seed was rejected
  graftctl describe shoot my-cluster -n garden-dev

  # Explain with another configuration than the one graft-scheduler publishes
  graftctl describe shoot my-cluster -n garden-dev --strategy=MinimalDistance --score-weight=LeastAllocated=1`

// now is the clock for ages; tests replace it.
var now = time.Now

// Options are the inputs of `graftctl describe`.
type Options struct {
	// Resource is seedcmd.Seeds or seedcmd.Shoots.
	Resource    seedcmd.Resource
	Names       []string
	ShowEvents  bool
	EventsLimit int
	// Scheduling chooses the scheduling configuration explanations use: the
	// one graft-scheduler publishes on its Lease unless flags override it.
	Scheduling *schedulingconfig.Flags
	// RegionConfigNamespace is where region ConfigMaps are read from, the
	// scheduler's regionConfigNamespace.
	RegionConfigNamespace string
	// Live is graft-descheduler's liveMigration, for a drained seed's plan,
	// with the record its leader keeps on the Lease DeschedulerLeaseNamespace/
	// DeschedulerLeaseName.
	Live                                            drainplan.LiveFlag
	DeschedulerLeaseName, DeschedulerLeaseNamespace string
	// descheduler is what the Lease gave, read at the first drained seed.
	descheduler *drainplan.Descheduler
	// Forecast names graft-capacity-annotator's Lease, whose published
	// window and pools a seed's forecast is made with.
	Forecast *livelandscape.ForecastFlags

	Namespace string
	Garden    garden.Client
	Kube      kubernetes.Interface
	// Now is the clock for ages; tests fix it.
	Now func() time.Time
	genericiooptions.IOStreams
}

// NewCommand returns `graftctl describe`.
func NewCommand(f factory.Factory, streams genericiooptions.IOStreams) *cobra.Command {
	o := &Options{ShowEvents: true, EventsLimit: 10, DeschedulerLeaseName: "graft-descheduler", DeschedulerLeaseNamespace: corev1alpha1.GardenNamespace, Scheduling: schedulingconfig.NewFlags(), Forecast: livelandscape.NewForecastFlags(), Now: now, IOStreams: streams}
	cmd := &cobra.Command{
		Use:                   "describe (seed|shoot) NAME...",
		DisableFlagsInUseLine: true,
		Short:                 "Show details of a seed or a shoot and why shoots are (not) scheduled",
		Long: `Show details of a shoot: its placement, tolerations and seed selector, its
last operation and its last Events. For a shoot without a seed, the shared
scheduling algorithm is run against the live landscape and every seed is
listed with the step that rejected it.

Show details of a seed: its taints with their effects and age, conditions,
capacity, allocatable and usage (counted from the shoots now), the shoots on
it and those migrating to or from it, the capacity forecast of its region and
pools (as graft-capacity-annotator makes it), its last Events, and for every
shoot waiting for a seed why this seed does not take it now.`,
		Example: example,
		ValidArgsFunction: func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			if len(args) == 0 {
				return []string{"seed", "shoot"}, cobra.ShellCompDirectiveNoFileComp
			}
			return nil, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: factory.RunE(f, o),
	}
	cmd.Flags().BoolVar(&o.ShowEvents, "show-events", o.ShowEvents, "If true, display events related to the described shoot.")
	cmd.Flags().IntVar(&o.EventsLimit, "events-limit", o.EventsLimit, "How many of the most recent Events to show.")
	o.Scheduling.AddFlags(cmd.Flags())
	o.Live.AddFlag(cmd.Flags())
	cmd.Flags().StringVar(&o.DeschedulerLeaseName, "descheduler-lease-name", o.DeschedulerLeaseName, "Name of graft-descheduler's leader-election Lease, whose published configuration and live migration record a drained seed's plan is computed with.")
	cmd.Flags().StringVar(&o.DeschedulerLeaseNamespace, "descheduler-lease-namespace", o.DeschedulerLeaseNamespace, "Namespace of graft-descheduler's leader-election Lease.")
	o.Forecast.AddFlags(cmd.Flags())
	livelandscape.AddRegionConfigNamespaceFlag(cmd.Flags(), &o.RegionConfigNamespace)
	return cmd
}

// Complete reads the resource type, names and namespace and obtains the clients.
func (o *Options) Complete(f factory.Factory, _ *cobra.Command, args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("you must specify the type of resource to describe: seed or shoot")
	}
	switch o.Resource = seedcmd.ResourceOf(args[0]); o.Resource {
	case seedcmd.Seeds, seedcmd.Shoots:
	default:
		return fmt.Errorf("invalid resource type %s, only seeds and shoots can be described", args[0])
	}
	o.Names = args[1:]
	var err error
	if o.Namespace, _, err = f.Namespace(); err != nil {
		return err
	}
	if o.Garden, err = f.Garden(); err != nil {
		return err
	}
	o.Kube, err = f.KubeClient()
	return err
}

// Validate checks the options.
func (o *Options) Validate() error {
	if len(o.Names) == 0 {
		if o.Resource == seedcmd.Seeds {
			return fmt.Errorf("at least one seed name must be specified")
		}
		return fmt.Errorf("at least one shoot name must be specified")
	}
	if o.EventsLimit < 0 {
		return fmt.Errorf("--events-limit must not be negative")
	}
	if _, err := o.Live.Live(); err != nil {
		return err
	}
	if o.RegionConfigNamespace != "" {
		if err := livelandscape.ValidateRegionConfigNamespace(o.RegionConfigNamespace); err != nil {
			return err
		}
	}
	return o.Scheduling.Validate()
}

// Run describes each named seed or shoot, separated by blank lines.
func (o *Options) Run(ctx context.Context) error {
	if o.Resource == seedcmd.Seeds {
		return o.runSeeds(ctx)
	}
	var (
		l      *livelandscape.Landscape
		choice schedulingconfig.Choice
	)
	for i, name := range o.Names {
		shoot, err := o.Garden.GetShoot(ctx, o.Namespace, name)
		if err != nil {
			return err
		}
		if i > 0 {
			fmt.Fprintln(o.Out)
		}
		w := tabwriter.NewWriter(o.Out, 0, 8, 2, ' ', 0)
		o.describeShoot(w, shoot)
		if err := w.Flush(); err != nil {
			return err
		}
		if o.ShowEvents {
			// The Events table aligns its own columns.
			w := tabwriter.NewWriter(o.Out, 0, 8, 2, ' ', 0)
			if err := o.describeEvents(ctx, w, eventsOf{kind: "Shoot", namespace: shoot.Namespace, name: shoot.Name, uid: shoot.UID}); err != nil {
				return err
			}
			if err := w.Flush(); err != nil {
				return err
			}
		}
		if shoot.Spec.SeedName == nil || *shoot.Spec.SeedName == "" {
			if l == nil {
				if choice = o.Scheduling.Choose(ctx, o.Kube.CoordinationV1()); choice.Warning != "" {
					fmt.Fprintf(o.ErrOut, "Warning: %s\n", choice.Warning)
				}
				if l, err = livelandscape.Load(ctx, o.Garden, o.Kube, choice.Config, o.RegionConfigNamespace); err != nil {
					return err
				}
			}
			if err := o.describeScheduling(l, choice, shoot); err != nil {
				return err
			}
		}
	}
	return nil
}

func (o *Options) describeShoot(w io.Writer, shoot *corev1alpha1.Shoot) {
	fmt.Fprintf(w, "Name:\t%s\n", shoot.Name)
	fmt.Fprintf(w, "Namespace:\t%s\n", shoot.Namespace)
	fmt.Fprintf(w, "Labels:\t%s\n", mapString(shoot.Labels))
	fmt.Fprintf(w, "Annotations:\t%s\n", mapString(shoot.Annotations))
	fmt.Fprintf(w, "Created:\t%s\n", o.age(shoot.CreationTimestamp))
	fmt.Fprintf(w, "Cloud Profile:\t%s\n", orNone(field(algorithm.CloudProfileNameOf(shoot))))
	fmt.Fprintf(w, "Provider:\t%s\n", field(shoot.Spec.Provider.Type))
	fmt.Fprintf(w, "Region:\t%s\n", field(shoot.Spec.Region))
	purpose := ""
	if shoot.Spec.Purpose != nil {
		purpose = string(*shoot.Spec.Purpose)
	}
	fmt.Fprintf(w, "Purpose:\t%s\n", orNone(field(purpose)))
	fmt.Fprintf(w, "Scheduler:\t%s\n", field(helper.ShootSchedulerName(shoot)))
	fmt.Fprintf(w, "Seed:\t%s\n", orNone(deref(shoot.Spec.SeedName)))
	if status := deref(shoot.Status.SeedName); status != "" && status != deref(shoot.Spec.SeedName) {
		fmt.Fprintf(w, "Status Seed:\t%s (control plane migration in flight)\n", status)
	}
	if a := shoot.Annotations[corev1alpha1.AnnotationDescheduledFrom]; a != "" {
		fmt.Fprintf(w, "Descheduled From:\t%s (%s)\n", field(a), orNone(field(shoot.Annotations[corev1alpha1.AnnotationDescheduledReason])))
	}
	if sel := shoot.Spec.SeedSelector; sel != nil {
		s, err := metav1.LabelSelectorAsSelector(&sel.LabelSelector)
		selector := "<invalid>"
		if err == nil {
			selector = orNone(field(s.String()))
		}
		fmt.Fprintf(w, "Seed Selector:\t%s\n", selector)
		if len(sel.ProviderTypes) > 0 {
			fmt.Fprintf(w, "  Provider Types:\t%s\n", field(strings.Join(sel.ProviderTypes, ",")))
		}
	} else {
		fmt.Fprintf(w, "Seed Selector:\t<none>\n")
	}
	if len(shoot.Spec.Tolerations) == 0 {
		fmt.Fprintf(w, "Tolerations:\t<none>\n")
	} else {
		for i, t := range shoot.Spec.Tolerations {
			label := ""
			if i == 0 {
				label = "Tolerations:"
			}
			fmt.Fprintf(w, "%s\t%s\n", label, field(helper.FormatToleration(t)))
		}
	}
	if op := shoot.Status.LastOperation; op != nil {
		fmt.Fprintf(w, "Last Operation:\t%s %s (%d%%), %s: %s\n", field(string(op.Type)), field(string(op.State)), op.Progress, o.age(op.LastUpdateTime), field(op.Description))
	} else {
		fmt.Fprintf(w, "Last Operation:\t<none>\n")
	}
}

// describeEvents lists the last Events about an object: a shoot's in its
// namespace, a seed's (cluster-scoped, so recorded in any namespace) in all.
func (o *Options) describeEvents(ctx context.Context, w io.Writer, of eventsOf) error {
	list, err := o.Kube.CoreV1().Events(of.namespace).List(ctx, metav1.ListOptions{FieldSelector: of.selector()})
	if err != nil {
		return err
	}
	events := make([]corev1.Event, 0, len(list.Items))
	for _, e := range list.Items {
		// Events of an earlier object of the same name do not belong here.
		if of.owns(e) {
			events = append(events, e)
		}
	}
	if len(events) == 0 {
		fmt.Fprintf(w, "Events:  <none>\n")
		return nil
	}
	sort.SliceStable(events, func(i, j int) bool { return eventTime(events[i]).Before(eventTime(events[j])) })
	if len(events) > o.EventsLimit {
		events = events[len(events)-o.EventsLimit:]
	}
	fmt.Fprintf(w, "Events:\n  Type\tReason\tAge\tFrom\tMessage\n  ----\t------\t----\t----\t-------\n")
	for _, e := range events {
		from := e.Source.Component
		if from == "" {
			from = e.ReportingController
		}
		age := duration.HumanDuration(o.Now().Sub(eventTime(e)))
		if e.Count > 1 {
			age = fmt.Sprintf("%s (x%d)", age, e.Count)
		}
		fmt.Fprintf(w, "  %s\t%s\t%s\t%s\t%s\n", field(e.Type), field(e.Reason), age, field(from), field(strings.TrimSpace(e.Message)))
	}
	return nil
}

func (o *Options) describeScheduling(l *livelandscape.Landscape, choice schedulingconfig.Choice, shoot *corev1alpha1.Shoot) error {
	fmt.Fprintf(o.Out, "Scheduling (the algorithm run now against %d seed(s)):\n", l.Snapshot.NumSeeds())
	fmt.Fprintf(o.Out, "  %s\n", choice)
	for _, w := range l.Warnings {
		fmt.Fprintf(o.Out, "  warning: %s\n", w)
	}
	in, err := l.Inputs(shoot)
	if err != nil {
		fmt.Fprintf(o.Out, "  cannot explain: %s\n", err.Error())
		return nil
	}
	e := algorithm.Explain(shoot, l.Snapshot, in)
	e.Notes = append(e.Notes, o.passingTaints(l, e)...)
	return algorithm.FormatExplanation(indent{o.Out}, e)
}

// passingTaints notes, for the seeds taints keep the shoot off, the taints
// their gardenlet configuration lacks: gardenlet removes them when it next
// starts, and the seed may then take the shoot.
func (o *Options) passingTaints(l *livelandscape.Landscape, e *algorithm.Explanation) []string {
	if l.SeedConfigs == nil {
		return nil
	}
	var notes []string
	for _, r := range e.Seeds {
		seed, ok := l.Snapshot.Seed(r.Seed)
		if r.Filter != algorithm.FilterTaints || !ok {
			continue
		}
		if passing := l.SeedConfigs[r.Seed].Passing(seed.Spec.Taints); len(passing) > 0 {
			notes = append(notes, fmt.Sprintf("seed %s: taint(s) %s are not in %s, so gardenlet removes them when it next starts",
				r.Seed, helper.FormatTaints(passing, ","), l.SeedConfigs[r.Seed]))
		}
	}
	return notes
}

// eventTime is when an Event last happened, whichever API wrote it.
func eventTime(e corev1.Event) time.Time {
	switch {
	case !e.LastTimestamp.IsZero():
		return e.LastTimestamp.Time
	case e.Series != nil && !e.Series.LastObservedTime.IsZero():
		return e.Series.LastObservedTime.Time
	case !e.EventTime.IsZero():
		return e.EventTime.Time
	case !e.FirstTimestamp.IsZero():
		return e.FirstTimestamp.Time
	}
	return e.CreationTimestamp.Time
}

func (o *Options) age(t metav1.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return fmt.Sprintf("%s (%s ago)", t.UTC().Format(time.RFC1123Z), duration.HumanDuration(o.Now().Sub(t.Time)))
}

func mapString(m map[string]string) string {
	if len(m) == 0 {
		return "<none>"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, field(k)+"="+field(m[k]))
	}
	return strings.Join(parts, "\n\t")
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// field is a string a tenant wrote, as describe prints it: quoted with Go's
// escapes when it holds a newline, a tab or another character that is not
// printable, so that it can neither add lines nor shift columns (the
// terminal's own control characters are escaped once more on the way out).
func field(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return r != ' ' && !unicode.IsPrint(r) }) < 0 {
		return s
	}
	return strconv.Quote(s)
}

func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

// indent prefixes every line written through it with two spaces.
type indent struct{ w io.Writer }

func (i indent) Write(p []byte) (int, error) {
	lines := strings.SplitAfter(string(p), "\n")
	var b strings.Builder
	for _, line := range lines {
		if line != "" {
			b.WriteString("  ")
			b.WriteString(line)
		}
	}
	if _, err := io.WriteString(i.w, b.String()); err != nil {
		return 0, err
	}
	return len(p), nil
}
