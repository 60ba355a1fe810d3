package describe

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/duration"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"

	"github.com/graft-dev/graft/pkg/algorithm"
	"github.com/graft-dev/graft/pkg/capacity/forecast"
	"github.com/graft-dev/graft/pkg/garden"
	"github.com/graft-dev/graft/pkg/graftctl/drainplan"
	"github.com/graft-dev/graft/pkg/graftctl/livelandscape"
	"github.com/graft-dev/graft/pkg/schedulingconfig"
)

// runSeeds describes each named seed, separated by blank lines. The live
// landscape is read once for all of them: it gives the shoots on each seed,
// the migrations to and from it and why the shoots waiting for a seed do not
// go to it.
func (o *Options) runSeeds(ctx context.Context) error {
	choice := o.Scheduling.Choose(ctx, o.Kube.CoordinationV1())
	if choice.Warning != "" {
		fmt.Fprintf(o.ErrOut, "Warning: %s\n", choice.Warning)
	}
	l, err := livelandscape.Load(ctx, o.Garden, o.Kube, choice.Config, o.RegionConfigNamespace)
	if err != nil {
		return err
	}
	waiting := explainWaiting(l)
	published, warning := o.Forecast.Read(ctx, o.Kube.CoordinationV1())
	summaries, err := l.Forecast(o.Now(), published, choice.SchedulerName)
	if err != nil {
		return err
	}
	for i, name := range o.Names {
		seed, err := o.Garden.GetSeed(ctx, name)
		if err != nil {
			return err
		}
		if i > 0 {
			fmt.Fprintln(o.Out)
		}
		w := tabwriter.NewWriter(o.Out, 0, 8, 2, ' ', 0)
		o.describeSeed(w, l, seed)
		o.describeForecast(w, seed, published, warning, summaries)
		if err := w.Flush(); err != nil {
			return err
		}
		if o.ShowEvents {
			w := tabwriter.NewWriter(o.Out, 0, 8, 2, ' ', 0)
			if err := o.describeEvents(ctx, w, eventsOf{kind: "Seed", name: seed.Name, uid: seed.UID}); err != nil {
				return err
			}
			if err := w.Flush(); err != nil {
				return err
			}
		}
		if err := o.describeDrain(ctx, l, seed); err != nil {
			return err
		}
		o.describeWaiting(waiting, choice, seed.Name)
	}
	return nil
}

// describeDrain prints the plan of a drained seed (NoExecute taint
// seed.gardener.cloud/unschedulable), as 'graftctl drain --plan' does, with
// graft-descheduler's configuration read from its Lease once for all seeds.
func (o *Options) describeDrain(ctx context.Context, l *livelandscape.Landscape, seed *corev1alpha1.Seed) error {
	drained := false
	for _, t := range seed.Spec.Taints {
		drained = drained || t.Key == corev1alpha1.SeedTaintUnschedulable && helper.TaintEffectOf(t) == corev1alpha1.TaintEffectNoExecute
	}
	if !drained {
		return nil
	}
	if o.descheduler == nil {
		d, err := o.Live.Descheduler(ctx, o.Kube.CoordinationV1(), o.DeschedulerLeaseNamespace, o.DeschedulerLeaseName, garden.APIOf(l))
		if err != nil {
			return err
		}
		for _, note := range d.Notes {
			fmt.Fprintf(o.ErrOut, "Warning: %s\n", note)
		}
		o.descheduler = d
	}
	entries, err := drainplan.Plan(l.WithSeed(seed), seed, o.descheduler, o.Now())
	if err != nil {
		return err
	}
	fmt.Fprintf(o.Out, "Drain Plan:  %s\n", drainplan.Summary(entries))
	if s := drainplan.LiveSummary(entries); s != "" {
		fmt.Fprintf(o.Out, "Live:        %s\n", s)
	}
	if len(entries) == 0 {
		return nil
	}
	var b strings.Builder
	if err := drainplan.Print(&b, entries); err != nil {
		return err
	}
	for _, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		fmt.Fprintf(o.Out, "  %s\n", line)
	}
	return nil
}

func (o *Options) describeSeed(w io.Writer, l *livelandscape.Landscape, seed *corev1alpha1.Seed) {
	fmt.Fprintf(w, "Name:\t%s\n", seed.Name)
	fmt.Fprintf(w, "Labels:\t%s\n", mapString(seed.Labels))
	fmt.Fprintf(w, "Annotations:\t%s\n", mapString(seed.Annotations))
	fmt.Fprintf(w, "Created:\t%s\n", o.age(seed.CreationTimestamp))
	fmt.Fprintf(w, "Provider:\t%s\n", seed.Spec.Provider.Type)
	fmt.Fprintf(w, "Region:\t%s\n", seed.Spec.Provider.Region)
	fmt.Fprintf(w, "Zones:\t%s\n", orNone(strings.Join(seed.Spec.Provider.Zones, ",")))
	ready, why := helper.SeedReadiness(seed)
	fmt.Fprintf(w, "Ready:\t%s\n", readyLine(ready, why))
	o.describeTaints(w, l, seed)

	if len(seed.Status.Conditions) == 0 {
		fmt.Fprintf(w, "Conditions:\t<none>\n")
	} else {
		fmt.Fprintf(w, "Conditions:\n  Type\tStatus\tLastTransitionTime\tReason\tMessage\n  ----\t------\t------------------\t------\t-------\n")
		for _, c := range seed.Status.Conditions {
			fmt.Fprintf(w, "  %s\t%s\t%s\t%s\t%s\n", c.Type, c.Status, o.since(c.LastTransitionTime), orNone(c.Reason), c.Message)
		}
	}

	fmt.Fprintf(w, "Shoots:\n")
	fmt.Fprintf(w, "  Capacity:\t%s\n", shootsOf(seed.Status.Capacity))
	fmt.Fprintf(w, "  Allocatable:\t%s\n", shootsOf(seed.Status.Allocatable))
	usage := strconv.Itoa(l.Snapshot.Usage(seed.Name)) + " counted now"
	if q, ok := seed.Status.Usage[corev1alpha1.ResourceShoots]; ok {
		usage += ", " + q.String() + " in status.usage"
	}
	fmt.Fprintf(w, "  Usage:\t%s\n", usage)

	var on, in, out []string
	for _, s := range l.Shoots {
		spec, status := deref(s.Spec.SeedName), deref(s.Status.SeedName)
		switch {
		case spec == seed.Name && status != "" && status != seed.Name:
			in = append(in, fmt.Sprintf("%s (from %s)", algorithm.ShootKey(s), status))
		case status == seed.Name && spec != seed.Name && spec != "":
			out = append(out, fmt.Sprintf("%s (to %s)", algorithm.ShootKey(s), spec))
		case spec == seed.Name:
			on = append(on, algorithm.ShootKey(s))
		}
	}
	listLines(w, "Shoots On It", on)
	listLines(w, "Migrating In", in)
	listLines(w, "Migrating Out", out)
}

// describeForecast prints the forecast of the seed's region and of each
// pool it is in, as graft-capacity-annotator makes it.
func (o *Options) describeForecast(w io.Writer, seed *corev1alpha1.Seed, p forecast.Published, warning string, summaries []forecast.Summary) {
	pools, _ := p.Selectors() // Forecast checked them
	fmt.Fprintf(w, "Forecast:\tnew shoots over %s, horizon %s\n", duration.HumanDuration(p.Window.Duration), duration.HumanDuration(p.Horizon.Duration))
	if warning != "" {
		fmt.Fprintf(w, "  warning:\t%s\n", warning)
	}
	for _, pool := range forecast.PoolsOf(seed, pools) {
		for _, s := range summaries {
			if s.Pool != pool {
				continue
			}
			label := "Region " + s.Name
			if s.Kind == forecast.KindPool {
				label = "Pool " + s.Name
			}
			free := strconv.Itoa(s.Free) + " free"
			if s.Unbounded {
				free = "no limit"
			}
			line := fmt.Sprintf("%s, %d waiting for capacity, %.1f new an hour, full %s", free, s.Waiting, s.PerHour, fullWhen(s))
			if s.Within(p.Horizon.Duration) {
				line += " (within the horizon)"
			}
			if pp, ok := p.Pool(s.Name); ok && s.Kind == forecast.KindPool && pp.ManagedSeedSet != nil {
				m := pp.ManagedSeedSet
				line += fmt.Sprintf("; ManagedSeedSet %s/%s, %d to %d replicas", m.Namespace, m.Name, m.MinReplicas, m.MaxReplicas)
			}
			fmt.Fprintf(w, "  %s:\t%s\n", label, line)
		}
	}
}

// fullWhen is "now", "never" or "in" a duration.
func fullWhen(s forecast.Summary) string {
	at := livelandscape.FullIn(s)
	if at == "now" || at == "never" {
		return at
	}
	return "in " + at
}

// describeTaints lists the taints with their effects and, for a NoExecute
// taint, when it was added; on Gardener it notes the taints gardenlet
// removes when it next starts.
func (o *Options) describeTaints(w io.Writer, l *livelandscape.Landscape, seed *corev1alpha1.Seed) {
	if len(seed.Spec.Taints) == 0 {
		fmt.Fprintf(w, "Taints:\t<none>\n")
		return
	}
	config := l.SeedConfigs[seed.Name]
	passing := config.Passing(seed.Spec.Taints)
	for i, t := range seed.Spec.Taints {
		label := ""
		if i == 0 {
			label = "Taints:"
		}
		line := helper.FormatTaint(t)
		if t.TimeAdded != nil {
			line += " (added " + o.since(*t.TimeAdded) + ")"
		}
		for _, p := range passing {
			if p == t {
				line += fmt.Sprintf(" (not in %s: gardenlet removes it when it next starts)", config)
			}
		}
		fmt.Fprintf(w, "%s\t%s\n", label, line)
	}
}

// waitingShoot is a shoot waiting for a seed and the algorithm's verdict on
// every seed, run once against the live landscape for all seeds described.
type waitingShoot struct {
	key         string
	explanation *algorithm.Explanation
	err         error
}

func explainWaiting(l *livelandscape.Landscape) []waitingShoot {
	var out []waitingShoot
	for _, s := range l.Shoots {
		if deref(s.Spec.SeedName) != "" {
			continue
		}
		w := waitingShoot{key: algorithm.ShootKey(s)}
		in, err := l.Inputs(s)
		if err != nil {
			w.err = err
		} else {
			w.explanation = algorithm.Explain(s, l.Snapshot, in)
		}
		out = append(out, w)
	}
	return out
}

// describeWaiting says, for each shoot waiting for a seed, why this seed
// does not take it now, or that it would.
func (o *Options) describeWaiting(waiting []waitingShoot, choice schedulingconfig.Choice, seedName string) {
	var lines []string
	for _, w := range waiting {
		if w.err != nil {
			lines = append(lines, fmt.Sprintf("%s: cannot explain: %v", w.key, w.err))
			continue
		}
		for _, r := range w.explanation.Seeds {
			switch {
			case r.Seed != seedName:
			case r.Chosen:
				lines = append(lines, fmt.Sprintf("%s: would be scheduled to this seed", w.key))
			case r.Filter == "":
				lines = append(lines, fmt.Sprintf("%s: fits, but seed %s is chosen", w.key, orNone(w.explanation.Seed)))
			default:
				lines = append(lines, fmt.Sprintf("%s: %s: %s", w.key, r.Filter, r.Message))
			}
		}
	}
	if len(lines) == 0 {
		fmt.Fprintf(o.Out, "Waiting Shoots:  <none>\n")
		return
	}
	fmt.Fprintf(o.Out, "Waiting Shoots (why this seed does not take them now):\n  %s\n", choice)
	for _, line := range lines {
		fmt.Fprintf(o.Out, "  %s\n", line)
	}
}

// eventsOf names the object whose Events describeEvents lists.
type eventsOf struct {
	kind, namespace, name string
	uid                   types.UID
}

// selector selects the object's Events; those of an earlier object of the
// same name are left out by UID afterwards.
func (e eventsOf) selector() string {
	set := fields.Set{"involvedObject.kind": e.kind, "involvedObject.name": e.name}
	if e.namespace != "" {
		set["involvedObject.namespace"] = e.namespace
	}
	return set.AsSelector().String()
}

func (e eventsOf) owns(ev corev1.Event) bool {
	return ev.InvolvedObject.UID == "" || ev.InvolvedObject.UID == e.uid
}

func readyLine(status corev1alpha1.ConditionStatus, why string) string {
	if why == "" {
		return string(status)
	}
	return fmt.Sprintf("%s (%s)", status, why)
}

func shootsOf(list corev1.ResourceList) string {
	if q, ok := list[corev1alpha1.ResourceShoots]; ok {
		return q.String()
	}
	return "<none>"
}

// listLines prints a labelled list, one item per line.
func listLines(w io.Writer, label string, items []string) {
	if len(items) == 0 {
		fmt.Fprintf(w, "  %s:\t<none>\n", label)
		return
	}
	fmt.Fprintf(w, "  %s (%d):\t%s\n", label, len(items), items[0])
	for _, item := range items[1:] {
		fmt.Fprintf(w, "  \t%s\n", item)
	}
}

// since is how long ago t was, or <unknown>.
func (o *Options) since(t metav1.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(o.Now().Sub(t.Time)) + " ago"
}
