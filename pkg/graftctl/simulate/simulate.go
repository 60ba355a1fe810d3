package simulate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/printers"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"

	"github.com/graft-dev/graft/pkg/algorithm"
	"github.com/graft-dev/graft/pkg/descheduler"
	"github.com/graft-dev/graft/pkg/garden"
	"github.com/graft-dev/graft/pkg/graftctl/drainplan"
	"github.com/graft-dev/graft/pkg/graftctl/factory"
	"github.com/graft-dev/graft/pkg/graftctl/livelandscape"
	"github.com/graft-dev/graft/pkg/landscapefile"
	"github.com/graft-dev/graft/pkg/schedulingconfig"
	"k8s.io/apimachinery/pkg/util/duration"
)

// Options are the inputs of `graftctl simulate`.
type Options struct {
	// Filenames are the landscape files; "-" reads standard input.
	Filenames []string
	// FromCluster reads the landscape from the garden graftctl is pointed at
	// (through graft's API or Gardener's) instead of files.
	FromCluster bool
	// Strategy is SameRegion or MinimalDistance.
	Strategy string
	// ScoreWeights turn on the scoring step, plugin name to weight.
	ScoreWeights map[string]int
	// Explain prints, for every shoot, why each seed was or was not chosen.
	Explain bool
	// Output is "table" (also when empty) or "json" (one object per line).
	Output string
	// Improve names the improving descheduler plugins (Rebalance, ComeHome)
	// whose plan to print instead of the pending shoots' placements.
	Improve []string
	// PluginArgs are their arguments as JSON, by plugin name, as in the
	// descheduler's configuration.
	PluginArgs map[string]string
	// Now is the plan's clock; time.Now when nil.
	Now func() time.Time
	// Live is graft-descheduler's live migration setting, for the
	// --improve plan's LIVE column (Gardener landscapes).
	Live drainplan.LiveFlag
	// RegionConfigNamespace is the namespace whose region ConfigMaps count,
	// the scheduler's regionConfigNamespace; those of other namespaces in the
	// files are ignored, as the scheduler ignores them.
	RegionConfigNamespace string

	genericiooptions.IOStreams

	factory   factory.Factory
	landscape *landscapefile.Landscape
	config    algorithm.Config
	configErr error
}

// NewOptions returns options with the defaults.
func NewOptions(streams genericiooptions.IOStreams) *Options {
	return &Options{Strategy: string(algorithm.StrategySameRegion), Output: "table", RegionConfigNamespace: v1alpha1.GardenNamespace, IOStreams: streams}
}

// NewCmdSimulate returns `graftctl simulate`; f gives the clients of
// --from-cluster.
func NewCmdSimulate(f factory.Factory, streams genericiooptions.IOStreams) *cobra.Command {
	o := NewOptions(streams)
	o.factory = f
	cmd := &cobra.Command{
		Use:                   "simulate (-f FILENAME | --from-cluster) [--strategy SameRegion|MinimalDistance] [--explain] [-o table|json]",
		DisableFlagsInUseLine: true,
		Short:                 "Show where the scheduler would place the shoots of a landscape file or of the live garden",
		Long: `Schedule the shoots of a landscape file with graft's scheduling algorithm, without a cluster.

The files hold Seeds, Shoots, CloudProfiles, NamespacedCloudProfiles (with their
merged status, as the API server holds them) and region ConfigMaps as multi-document
YAML, in graft's apiVersion core.graft.dev/v1alpha1 or in Gardener's
core.gardener.cloud/v1beta1, so an export of an existing Gardener landscape can be
used as it is. Documents of other kinds (Projects, Secrets, ...) are skipped with a
warning. Every shoot without spec.seedName is scheduled, in document order; each
decision counts in the usage of the seeds for the next one.

With --from-cluster the landscape is read once from the garden graftctl is
pointed at, through graft's API or Gardener's (see --api): its seeds, shoots,
cloud profiles (namespaced ones included) and the region ConfigMaps of --region-config-namespace. Shoots
without a seed are scheduled in namespace and name order; nothing is written.`,
		Example: `  # Where would the pending shoots of an exported Gardener landscape go?
  graftctl simulate -f garden-export.yaml

  # The same with the MinimalDistance strategy, as JSON lines
  graftctl simulate -f garden-export.yaml --strategy MinimalDistance -o json

  # Why was each seed rejected?
  kubectl get seeds,shoots,cloudprofiles -A -o yaml | graftctl simulate -f - --explain

  # Where would the live garden's pending shoots go?
  graftctl simulate --from-cluster

  # What would Rebalance and ComeHome move in the live garden, and when?
  graftctl simulate --from-cluster --improve Rebalance,ComeHome --plugin-args 'Rebalance={"highUtilisation":80,"lowUtilisation":50}'

  # Weigh free capacity twice as much as distance (GEP-13 scoring)
  graftctl simulate -f landscape.yaml --strategy MinimalDistance --score-weight LeastAllocated=2,MinimalDistance=1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Complete(cmd.Context()); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run()
		},
	}
	flags := cmd.Flags()
	flags.StringSliceVarP(&o.Filenames, "filename", "f", o.Filenames, "Landscape file(s) to read; - reads standard input")
	flags.BoolVar(&o.FromCluster, "from-cluster", o.FromCluster, "Read the landscape from the garden instead of files")
	flags.StringVar(&o.Strategy, "strategy", o.Strategy, "Candidate determination strategy: SameRegion or MinimalDistance")
	flags.StringToIntVar(&o.ScoreWeights, "score-weight", o.ScoreWeights,
		"Weights of score plugins (MinimalDistance, LeastAllocated, PreferNoSchedule), e.g. LeastAllocated=2; none reproduces the reference scheduler")
	flags.BoolVar(&o.Explain, "explain", o.Explain, "Explain every decision seed by seed")
	flags.StringSliceVar(&o.Improve, "improve", o.Improve,
		"Print the plan of these graft-descheduler improving plugins (Rebalance, ComeHome) instead: what they would move, from where to where, when, and each seed's usage before and after")
	flags.StringToStringVar(&o.PluginArgs, "plugin-args", o.PluginArgs,
		`Arguments of an --improve plugin as JSON, as in graft-descheduler's configuration, e.g. Rebalance={"highUtilisation":80}`)
	flags.StringVarP(&o.Output, "output", "o", o.Output, "Output format: table or json (one JSON object per line)")
	livelandscape.AddRegionConfigNamespaceFlag(flags, &o.RegionConfigNamespace)
	o.Live.AddFlag(flags)
	_ = cmd.MarkFlagFilename("filename", "yaml", "yml", "json")
	_ = cmd.RegisterFlagCompletionFunc("strategy", cobra.FixedCompletions(
		[]string{string(algorithm.StrategySameRegion), string(algorithm.StrategyMinimalDistance)}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"table", "json"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// Complete reads the landscape, from the files or the garden, and builds the
// algorithm configuration.
func (o *Options) Complete(ctx context.Context) error {
	// Validate reports an invalid configuration.
	o.config, o.configErr = schedulingconfig.FromFlags(o.Strategy, o.ScoreWeights)
	if o.FromCluster {
		if len(o.Filenames) > 0 {
			return nil // Validate says so
		}
		return o.readCluster(ctx)
	}
	if len(o.Filenames) == 0 {
		return nil // Validate says so
	}
	o.landscape = landscapefile.New()
	for _, name := range o.Filenames {
		if err := o.readFile(name); err != nil {
			return err
		}
	}
	return nil
}

func (o *Options) readFile(name string) error {
	if name == "-" {
		if o.In == nil {
			return errors.New("cannot read standard input")
		}
		return o.landscape.Read(o.In, "stdin")
	}
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	return o.landscape.Read(f, name)
}

// readCluster reads the landscape from the garden, with livelandscape's one
// read of it. Shoots are kept in namespace and name order, the API server's
// list order, so that the decisions do not depend on the client.
func (o *Options) readCluster(ctx context.Context) error {
	if o.factory == nil {
		return errors.New("--from-cluster needs a cluster configuration")
	}
	client, err := o.factory.Garden()
	if err != nil {
		return err
	}
	kube, err := o.factory.KubeClient()
	if err != nil {
		return err
	}
	live, err := livelandscape.Load(ctx, client, kube, o.config, o.RegionConfigNamespace)
	if err != nil {
		return fmt.Errorf("reading the landscape from the cluster (%s): %w", client.API(), err)
	}
	for _, w := range live.Warnings {
		fmt.Fprintf(o.ErrOut, "Warning: %s\n", w)
	}
	l := landscapefile.New()
	l.Seeds = live.Seeds
	l.Shoots = live.Shoots
	sort.SliceStable(l.Shoots, func(i, j int) bool { return algorithm.ShootKey(l.Shoots[i]) < algorithm.ShootKey(l.Shoots[j]) })
	for _, p := range live.CloudProfiles {
		l.CloudProfiles = append(l.CloudProfiles, p)
	}
	sort.Slice(l.CloudProfiles, func(i, j int) bool { return l.CloudProfiles[i].Name < l.CloudProfiles[j].Name })
	for _, p := range live.NamespacedCloudProfiles {
		l.NamespacedCloudProfiles = append(l.NamespacedCloudProfiles, p)
	}
	sort.Slice(l.NamespacedCloudProfiles, func(i, j int) bool {
		a, b := l.NamespacedCloudProfiles[i], l.NamespacedCloudProfiles[j]
		return a.Namespace+"/"+a.Name < b.Namespace+"/"+b.Name
	})
	l.ConfigMaps = live.RegionConfigs
	l.Projects, l.Migrates = live.Projects, live.Migration()
	o.landscape = l
	return nil
}

// origin names an object of the landscape in messages: its document for
// files, its kind and name for objects read from the cluster.
func (o *Options) origin(kind string, obj metav1.Object) string {
	if doc, ok := o.landscape.DocumentOf(obj); ok {
		return doc.String()
	}
	if obj.GetNamespace() != "" {
		return fmt.Sprintf("%s %s/%s", kind, obj.GetNamespace(), obj.GetName())
	}
	return fmt.Sprintf("%s %s", kind, obj.GetName())
}

// Validate checks the flags.
func (o *Options) Validate() error {
	var errs []error
	switch {
	case o.FromCluster && len(o.Filenames) > 0:
		errs = append(errs, errors.New("-f and --from-cluster cannot be combined: the landscape comes from files or from the cluster"))
	case !o.FromCluster && len(o.Filenames) == 0:
		errs = append(errs, errors.New("must specify at least one landscape file with -f, or --from-cluster"))
	}
	switch o.Output {
	case "", "table", "json":
	default:
		errs = append(errs, fmt.Errorf("unsupported output format %q: use table or json", o.Output))
	}
	if o.configErr != nil {
		errs = append(errs, o.configErr)
	}
	if err := livelandscape.ValidateRegionConfigNamespace(o.RegionConfigNamespace); err != nil {
		errs = append(errs, err)
	}
	if len(o.Improve) > 0 && o.Explain {
		errs = append(errs, errors.New("--explain and --improve cannot be combined"))
	}
	if _, err := o.improvingPlugins(); err != nil {
		errs = append(errs, err)
	}
	if flow, err := o.Live.Live(); err != nil {
		errs = append(errs, err)
	} else if flow != nil && len(o.Improve) == 0 {
		errs = append(errs, errors.New("--live-migration Prefer needs --improve: it says which planned moves go live"))
	}
	return errors.Join(errs...)
}

// Result is one shoot's decision, as printed with -o json.
type Result struct {
	Shoot string `json:"shoot"`
	Seed  string `json:"seed"`
	Error string `json:"error"`
	// Explanation is the seed-by-seed account, only with --explain.
	Explanation []algorithm.SeedResult `json:"explanation,omitempty"`

	short       string
	explanation *algorithm.Explanation
}

// Run schedules the landscape's pending shoots and prints the decisions.
func (o *Options) Run() error {
	l := o.landscape
	if len(l.Skipped) > 0 {
		o.warnSkipped()
	}
	if err := o.checkProfiles(); err != nil {
		return err
	}
	pending, err := o.pendingShoots()
	if err != nil {
		return err
	}

	snap := algorithm.NewSnapshot()
	for _, s := range l.Seeds {
		snap.AddSeed(s)
	}
	for _, s := range l.Shoots {
		snap.AddShoot(s)
	}
	o.warnIgnoredRegionConfigMaps()
	l.RegionConfigNamespace = o.RegionConfigNamespace
	inputs := &algorithm.InputsBuilder{
		Landscape: l,
		Config:    o.config,
		RegionConfigName: func(cm *corev1.ConfigMap) string {
			name := cm.Namespace + "/" + cm.Name
			if doc, ok := l.DocumentOf(cm); ok {
				name += fmt.Sprintf(" (%s document %d)", doc.Source, doc.Index)
			}
			return name
		},
	}

	results := make([]Result, 0, len(pending))
	for _, shoot := range pending {
		in, _ := inputs.Inputs(shoot) // pendingShoots found every shoot's profile
		res := Result{Shoot: algorithm.ShootKey(shoot)}
		var seed string
		var err error
		if o.Explain {
			res.explanation = algorithm.Explain(shoot, snap, in)
			res.Explanation = res.explanation.Seeds
			seed, err = res.explanation.Seed, res.explanation.Err
		} else {
			seed, err = algorithm.Schedule(shoot, snap, in)
		}
		if err != nil {
			res.Error, res.short = err.Error(), algorithm.ShortReason(err)
		} else {
			// Count the decision for the shoots that follow.
			res.Seed = seed
			bound := shoot.DeepCopy()
			bound.Spec.SeedName = &seed
			snap.AddShoot(bound)
		}
		results = append(results, res)
	}
	if len(o.Improve) > 0 {
		clock := time.Now
		if o.Now != nil {
			clock = o.Now
		}
		now := clock()
		plan, err := o.improvementPlan(l, now)
		if err != nil {
			return err
		}
		return o.printPlan(plan, snap, l.Seeds, o.liveBlockers(plan, l.Seeds, inputs.Inputs), now)
	}
	return o.print(results)
}

// improvingPlugins returns graft-descheduler's plugin configuration for
// --improve and --plugin-args, each plugin built once to check its
// arguments as graft-descheduler builds it.
func (o *Options) improvingPlugins() ([]configv1alpha1.DeschedulerPlugin, error) {
	if len(o.Improve) == 0 {
		if len(o.PluginArgs) > 0 {
			return nil, errors.New("--plugin-args needs --improve")
		}
		return nil, nil
	}
	improving := sets.New(descheduler.DefaultRegistry().Improving()...)
	var config []configv1alpha1.DeschedulerPlugin
	for _, name := range o.Improve {
		if !improving.Has(name) {
			return nil, fmt.Errorf("--improve %q: not an improving plugin; use %s", name, strings.Join(sets.List(improving), ", "))
		}
		config = append(config, configv1alpha1.DeschedulerPlugin{Name: name, Args: runtime.RawExtension{Raw: []byte(o.PluginArgs[name])}})
	}
	for name := range o.PluginArgs {
		if !slices.Contains(o.Improve, name) {
			return nil, fmt.Errorf("--plugin-args %s: the plugin is not in --improve", name)
		}
	}
	if _, err := descheduler.DefaultRegistry().Build(config); err != nil {
		return nil, err
	}
	return config, nil
}

// ImproveHorizon is how far simulate --improve plans: every maintenance
// window comes once in it.
const ImproveHorizon = 24 * time.Hour

// improvementPlan runs graft-descheduler's planner (descheduler.ComputePlan)
// over the landscape for ImproveHorizon: its default configuration with the
// --improve plugins (NoExecuteTaints runs too, as it always does), the
// strategy and score weights of the flags, and --live-migration's evidence.
func (o *Options) improvementPlan(l *landscapefile.Landscape, now time.Time) (*descheduler.Plan, error) {
	plugins, _ := o.improvingPlugins() // Validate checked them
	cfg := &configv1alpha1.DeschedulerConfiguration{Plugins: plugins, RegionConfigNamespace: o.RegionConfigNamespace}
	flow, _ := o.Live.Live() // Validate checked it
	var landscape algorithm.Landscape = l
	if flow != nil {
		// Only a control-plane migration goes live: the moves of a file's
		// landscape are planned as on Gardener's API.
		landscape = migrating{l}
		cfg.LiveMigration, cfg.LiveMigrationGardenletVersions = configv1alpha1.LiveMigrationPrefer, o.Live.Versions
	}
	cfg.API = configv1alpha1.SchedulerAPI(garden.APIOf(landscape))
	cfg.Default()
	return descheduler.ComputePlan(l.Seeds, l.Shoots, now, descheduler.PlanOptions{
		Config: cfg, Scheduling: &o.config, Landscape: landscape, Live: flow, Until: now.Add(ImproveHorizon),
	})
}

// migrating is a landscape whose moves are control-plane migrations.
type migrating struct{ *landscapefile.Landscape }

func (migrating) Migration() bool { return true }

// printPlan prints the plan's moves and each seed's usage before (snap)
// and after them.
func (o *Options) printPlan(plan *descheduler.Plan, snap *algorithm.Snapshot, seeds []*v1alpha1.Seed, live []string, now time.Time) error {
	if o.Output == "json" {
		enc := json.NewEncoder(o.Out)
		enc.SetEscapeHTML(false)
		for i, m := range plan.Moves {
			row := map[string]any{"shoot": algorithm.ShootKey(m.Shoot), "from": m.From, "to": m.To, "plugin": m.Plugin, "now": !m.At.After(now), "at": m.At.UTC().Format(time.RFC3339), "reason": m.Reason}
			if live != nil {
				row["live"], row["liveBlocker"] = live[i] == "", live[i]
			}
			if err := enc.Encode(row); err != nil {
				return err
			}
		}
		for _, seed := range seeds {
			if err := enc.Encode(map[string]any{"seed": seed.Name, "allocatable": allocatableOf(seed), "before": snap.Usage(seed.Name), "after": plan.Usage[seed.Name]}); err != nil {
				return err
			}
		}
		return nil
	}
	w := printers.GetNewTabWriter(o.Out)
	header := "SHOOT\tFROM\tTO\tWHEN\tPLUGIN"
	if live != nil {
		header += "\tLIVE"
	}
	fmt.Fprintln(w, header)
	moveNow := 0
	for i, m := range plan.Moves {
		when, to := "now", m.To
		if m.At.After(now) {
			when = "in " + duration.HumanDuration(m.At.Sub(now))
		} else {
			moveNow++
		}
		if to == "" {
			to = "<none>"
		}
		row := fmt.Sprintf("%s\t%s\t%s\t%s\t%s", algorithm.ShootKey(m.Shoot), m.From, to, when, m.Plugin)
		if live != nil {
			row += "\tyes"
			if live[i] != "" {
				row = strings.TrimSuffix(row, "yes") + "no: " + live[i]
			}
		}
		fmt.Fprintln(w, row)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(o.Out, "\n%d move(s), %d now, in the next %s: graft-descheduler's own passes with its default budgets, churn limits and cool-down, each move in its shoot's window.\n",
		len(plan.Moves), moveNow, duration.HumanDuration(ImproveHorizon))
	if s := drainplan.LiveSummaryOf(live); s != "" {
		fmt.Fprintln(o.Out, s)
	}
	fmt.Fprintln(o.Out)
	fmt.Fprintln(w, "SEED\tALLOCATABLE\tBEFORE\tAFTER")
	for _, seed := range seeds {
		n, before, after := allocatableOf(seed), snap.Usage(seed.Name), plan.Usage[seed.Name]
		if before == after && n < 0 {
			continue
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", seed.Name, allocatable(n), utilisation(before, n), utilisation(after, n))
	}
	return w.Flush()
}

// allocatableOf is the seed's allocatable shoots, -1 for none declared.
func allocatableOf(seed *v1alpha1.Seed) int64 {
	if q, ok := seed.Status.Allocatable[v1alpha1.ResourceShoots]; ok {
		return q.Value()
	}
	return -1
}

// liveBlockers says, with --live-migration Prefer, for each planned move
// what keeps it from going live ("" for a move timed as live), as
// graft-descheduler judges it (algorithm.LiveFlow.MoveBlocker); nil without.
func (o *Options) liveBlockers(plan *descheduler.Plan, seeds []*v1alpha1.Seed, inputs func(*v1alpha1.Shoot) (algorithm.Inputs, error)) []string {
	flow, _ := o.Live.Live() // Validate checked it
	if flow == nil {
		return nil
	}
	byName := map[string]*v1alpha1.Seed{}
	for _, s := range seeds {
		byName[s.Name] = s
	}
	out := make([]string, len(plan.Moves))
	for i, m := range plan.Moves {
		if m.Live {
			continue
		}
		in, err := inputs(m.Shoot)
		if err != nil {
			out[i] = err.Error()
			continue
		}
		if out[i] = flow.MoveBlocker(m.Shoot, byName[m.From], byName[m.To], in.Regions()); out[i] == "" {
			out[i] = "no seed that fits takes its control plane live"
		}
	}
	return out
}

func allocatable(n int64) string {
	if n < 0 {
		return "<none>"
	}
	return fmt.Sprint(n)
}

// utilisation prints a seed's usage, with its share of allocatable shoots.
func utilisation(usage int, allocatable int64) string {
	if allocatable <= 0 {
		return fmt.Sprint(usage)
	}
	return fmt.Sprintf("%d (%d%%)", usage, int(math.Round(100*float64(usage)/float64(allocatable))))
}

// warnIgnoredRegionConfigMaps warns about region ConfigMaps outside the
// region config namespace, which the scheduler would not read either.
func (o *Options) warnIgnoredRegionConfigMaps() {
	var ignored []string
	for _, cm := range o.landscape.ConfigMaps {
		if cm.Namespace != o.RegionConfigNamespace && cm.Labels[v1alpha1.LabelSchedulingPurpose] == v1alpha1.LabelSchedulingPurposeRegionConfig {
			doc, _ := o.landscape.DocumentOf(cm)
			ignored = append(ignored, doc.String())
		}
	}
	if len(ignored) > 0 {
		fmt.Fprintf(o.ErrOut, "Warning: ignored %d region ConfigMap(s) outside namespace %q (--%s), as graft-scheduler ignores them: %s\n",
			len(ignored), o.RegionConfigNamespace, livelandscape.RegionConfigNamespaceFlag, strings.Join(ignored, ", "))
	}
}

func (o *Options) warnSkipped() {
	parts := make([]string, 0, len(o.landscape.Skipped))
	for _, d := range o.landscape.Skipped {
		parts = append(parts, d.String())
	}
	fmt.Fprintf(o.ErrOut, "Warning: skipped %d document(s) of kinds graftctl simulate does not read: %s\n", len(parts), strings.Join(parts, ", "))
}

// checkProfiles refuses a cloud profile or NamespacedCloudProfile given
// twice.
func (o *Options) checkProfiles() error {
	if _, err := index(o.landscape, o.landscape.CloudProfiles, "cloud profile"); err != nil {
		return err
	}
	_, err := index(o.landscape, o.landscape.NamespacedCloudProfiles, "NamespacedCloudProfile")
	return err
}

// index keys objects by namespace/name (name alone when cluster-wide).
func index[T any, P interface {
	*T
	metav1.Object
}](l *landscapefile.Landscape, objs []P, kind string) (map[string]P, error) {
	out := map[string]P{}
	for _, p := range objs {
		key := p.GetName()
		if p.GetNamespace() != "" {
			key = p.GetNamespace() + "/" + key
		}
		if prev, ok := out[key]; ok {
			d1, _ := l.DocumentOf(prev)
			d2, _ := l.DocumentOf(p)
			return nil, fmt.Errorf("%s: %s %q is already defined in %s", d2, kind, key, d1)
		}
		out[key] = p
	}
	return out, nil
}

func (o *Options) hasProfile(name string) bool {
	p, _ := o.landscape.CloudProfile(name)
	return p != nil
}

// pendingShoots returns the shoots to schedule, in document order, after
// checking that each names a cloud profile of the landscape.
func (o *Options) pendingShoots() ([]*v1alpha1.Shoot, error) {
	var out []*v1alpha1.Shoot
	var errs []error
	for _, s := range o.landscape.Shoots {
		if helper.ShootBound(s) {
			continue
		}
		doc := o.origin("Shoot", s)
		name := algorithm.CloudProfileNameOf(s)
		kind := "CloudProfile"
		if s.Spec.CloudProfile != nil && s.Spec.CloudProfile.Kind != "" {
			kind = s.Spec.CloudProfile.Kind
		}
		switch {
		case name == "":
			errs = append(errs, fmt.Errorf("%s: the shoot names no cloud profile (spec.cloudProfile.name or spec.cloudProfileName)", doc))
		case kind != "CloudProfile" && kind != algorithm.KindNamespacedCloudProfile:
			errs = append(errs, fmt.Errorf("%s: cloud profile kind %q is not supported: CloudProfile or NamespacedCloudProfile", doc, kind))
		case kind == "CloudProfile" && !o.hasProfile(name):
			errs = append(errs, fmt.Errorf("%s: cloud profile %q is not in the landscape", doc, name))
		default:
			if _, err := algorithm.CloudProfileOf(o.landscape, s); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", doc, err))
				continue
			}
			out = append(out, s)
		}
	}
	return out, errors.Join(errs...)
}

func (o *Options) print(results []Result) error {
	if o.Output == "json" {
		enc := json.NewEncoder(o.Out)
		enc.SetEscapeHTML(false)
		for _, r := range results {
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
		return nil
	}
	if o.Explain {
		for i, r := range results {
			if i > 0 {
				fmt.Fprintln(o.Out)
			}
			if err := algorithm.FormatExplanation(o.Out, r.explanation); err != nil {
				return err
			}
		}
		return nil
	}
	w := printers.GetNewTabWriter(o.Out)
	fmt.Fprintln(w, "SHOOT\tSEED\tREASON")
	for _, r := range results {
		seed, reason := r.Seed, r.short
		if seed == "" {
			seed = "<none>"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\n", r.Shoot, seed, reason)
	}
	return w.Flush()
}
