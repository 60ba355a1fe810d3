package drain

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/clock"

	"github.com/graft-dev/client-go/clientset/versioned"
	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
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

const long = `Drain a seed in preparation for maintenance or deletion.

The seed is first cordoned (seed.gardener.cloud/unschedulable:NoSchedule), so
that no new shoot is placed on it, and then marked for eviction with
seed.gardener.cloud/unschedulable:NoExecute. graft-descheduler evicts every
shoot that does not tolerate that taint and the scheduler places it on another
seed. Shoots that tolerate the taint stay; those that tolerate it for a limited
time (tolerationSeconds) leave when that time is up, counted from the taint's
timeAdded, which drain records when it adds the taint (running drain again on
a drained seed keeps it).

With --wait (the default) graftctl follows the seed's shoots and prints each
move until every shoot that has to leave runs on another seed. It checks the
descheduler's leader-election Lease first and while waiting, and stops with an
error when the descheduler is not running instead of waiting forever. When
--timeout passes first, it lists the shoots left and why, and exits non-zero.

With --in-maintenance-windows the drain disrupts no tenant outside its
maintenance window (spec.maintenance.timeWindow): graftctl records the
deadline (--deadline from now) on the seed (graft.dev/drain-deadline) before
it adds the NoExecute taint, and graft-descheduler, on either API, moves each
shoot inside its next window, a shoot without a window at once, and the
shoots no window reached at the deadline. Moves of other causes (another
NoExecute taint, a not-ready seed) are not delayed. A plain drain of a seed
drained in windows drops the deadline: its shoots then move at once.

--plan prints, for each shoot on the seed in the order graft-descheduler
moves them, where it goes, when, how (an eviction, a classic or a live
control-plane migration) and why: graft-descheduler's own passes run over a
copy of the garden and a simulated clock, with the configuration its leader
publishes on its Lease; 'graftctl describe seed' prints the same plan for a
drained seed.

With --dry-run nothing is changed: graftctl prints, for every shoot on the
seed, where the scheduling algorithm would place it now, or why it cannot
move (the plan, with --plan or --in-maintenance-windows).

The algorithm is asked with the scheduling configuration graft-scheduler
publishes on its leader-election Lease (--scheduler-lease-namespace,
--scheduler-lease-name), or with --strategy and --score-weight when given;
a line says which one was used.

On a Gardener garden (core.gardener.cloud) seed taints evict nothing and
Gardener refuses to clear a shoot's spec.seedName: a drain there is a
control-plane migration per shoot. Where graft-descheduler runs (its Lease is
held and carries its configuration) the drain is handed to it, as on graft's
API: it makes the migrations under its budgets, pace and windows, and graftctl
follows them. Without it, or with --migrate, graftctl makes them with
graft-descheduler's own engine: it marks the seed as above, then runs the
descheduler's passes, gate and writer over the seed alone, with the
configuration its leader last published on its Lease (or its defaults), so
that the moves, their order, budgets, pace and windows are the descheduler's
(--migration-rate, --migration-burst and --max-in-flight replace its
evictionRate, evictionBurst and maxMigrationsInFlight when given). Each move
binds the shoot to another seed through shoots/binding, preconditioned on the
resourceVersion read; the destinations are only seeds Gardener accepts (both
seeds have spec.backup and the same internal DNS domain, and a shoot under a
default domain of the old seed finds it on the new one). A move held prints
why, once per reason; the drain ends when no move is left to start, and a
shoot no seed takes stays and is reported. gardenlet then migrates the
control plane, and Gardener freezes the shoot's spec until status.seedName
follows. With --wait (the default) graftctl follows each migration until
status.seedName names the new seed. graftctl exits 1 when a shoot could not be
moved, 2 when --timeout ended the drain first (listing what finished, what is
still moving and what was left). With --dry-run it prints the drain's plan
(--dry-run=server also asks Gardener's admission about each planned binding).

'graftctl uncordon' undoes a drain.`

const example = `  # Drain seed "aws-eu1" and follow its shoots until they have all moved
  graftctl drain aws-eu1

  # Give up after ten minutes, listing the shoots left and why
  graftctl drain aws-eu1 --timeout=10m

  # Only mark the seed; graft-descheduler moves the shoots in the background
  graftctl drain aws-eu1 --wait=false

  # Show where every shoot would go, changing nothing
  graftctl drain aws-eu1 --dry-run

  # Move each shoot in its maintenance window, the rest in three days, print
  # the plan and follow the drain to the end
  graftctl drain aws-eu1 --in-maintenance-windows --deadline=72h --plan

  # On a Gardener garden without graft-descheduler: migrate every shoot's
  # control plane from here, with the descheduler's engine and published
  # configuration, at most five migrations in flight, for at most an hour
  graftctl drain aws-eu1 --migrate --max-in-flight=5 --timeout=1h`

// Options are the inputs of `graftctl drain`.
type Options struct {
	SeedName       string
	Wait           bool
	Timeout        time.Duration
	DryRun         seedcmd.DryRunStrategy
	LeaseName      string
	LeaseNamespace string
	// plannedWhy is what the drain plan says of each shoot left, computed
	// once when a wait gives up.
	plannedWhy map[string]string
	// LeaseCheckInterval is how often the descheduler's Lease is re-read while waiting.
	LeaseCheckInterval time.Duration
	// Scheduling chooses the scheduling configuration for --dry-run and the
	// reasons given for shoots left after a timeout: the one graft-scheduler
	// publishes on its Lease unless flags override it.
	Scheduling *schedulingconfig.Flags
	// RegionConfigNamespace is where region ConfigMaps are read from, the
	// scheduler's regionConfigNamespace.
	RegionConfigNamespace string
	// Migrate drains a Gardener seed by migrating each shoot's control plane.
	Migrate bool
	// InMaintenanceWindows makes the drain's moves wait for each shoot's
	// maintenance window, or for Deadline from now.
	InMaintenanceWindows bool
	Deadline             time.Duration
	// Plan prints the drain's plan; Live is graft-descheduler's liveMigration.
	Plan bool
	Live drainplan.LiveFlag
	// MigrationRate, MigrationBurst and MaxInFlight override, for --migrate,
	// graft-descheduler's evictionRate, evictionBurst and
	// maxMigrationsInFlight where paceSet names their flags.
	MigrationRate  float64
	MigrationBurst int
	MaxInFlight    int
	paceSet        map[string]bool

	// Garden is the client of the API the cluster serves; where its moves
	// are migrations (Gardener) the drain migrates through it.
	Garden garden.Client
	// migrates is set where the drain moves the shoots itself, by
	// control-plane migrations (garden.Mover); elsewhere it taints the seed
	// and graft-descheduler evicts.
	migrates bool

	Graft versioned.Interface
	Kube  kubernetes.Interface
	Clock clock.WithTicker
	genericiooptions.IOStreams

	// choice is the scheduling configuration, once chosen.
	choice *schedulingconfig.Choice
}

// NewCommand returns `graftctl drain`.
func NewCommand(f factory.Factory, streams genericiooptions.IOStreams) *cobra.Command {
	o := &Options{
		Wait:               true,
		LeaseName:          "graft-descheduler",
		LeaseNamespace:     corev1alpha1.GardenNamespace,
		LeaseCheckInterval: 10 * time.Second,
		MigrationRate:      configv1alpha1.DefaultEvictionRate,
		MigrationBurst:     configv1alpha1.DefaultEvictionBurst,
		MaxInFlight:        configv1alpha1.DefaultMaxMigrationsInFlight,
		Scheduling:         schedulingconfig.NewFlags(),
		Clock:              clock.RealClock{},
		IOStreams:          streams,
	}
	cmd := &cobra.Command{
		Use:                   "drain NAME",
		DisableFlagsInUseLine: true,
		Short:                 "Drain seed in preparation for maintenance",
		Long:                  long,
		Example:               example,
		ValidArgsFunction: func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return seedcmd.CompleteSeedNames(f)(cmd, args, toComplete)
		},
		RunE: factory.RunE(f, o),
	}
	flags := cmd.Flags()
	flags.BoolVar(&o.Wait, "wait", o.Wait, "Follow the seed's shoots until every shoot that has to leave runs on another seed.")
	flags.DurationVar(&o.Timeout, "timeout", 0, "The length of time to wait before giving up, zero means infinite.")
	flags.StringVar(&o.LeaseName, "descheduler-lease-name", o.LeaseName, "Name of graft-descheduler's leader-election Lease.")
	flags.StringVar(&o.LeaseNamespace, "descheduler-lease-namespace", o.LeaseNamespace, "Namespace of graft-descheduler's leader-election Lease.")
	flags.DurationVar(&o.LeaseCheckInterval, "descheduler-lease-check-interval", o.LeaseCheckInterval, "How often to check graft-descheduler's Lease while waiting.")
	flags.BoolVar(&o.InMaintenanceWindows, "in-maintenance-windows", false, "Move each shoot in its maintenance window instead of at once; graft-descheduler moves them, on either API. Needs --deadline.")
	flags.DurationVar(&o.Deadline, "deadline", 0, "With --in-maintenance-windows, how long from now the drain waits for windows: the shoots no window reached move then.")
	flags.BoolVar(&o.Plan, "plan", false, "Print, for each shoot on the seed, where it goes, when, how (eviction, classic or live migration) and why.")
	flags.BoolVar(&o.Migrate, "migrate", false, "On a Gardener garden, make the drain's control-plane migrations from here, with graft-descheduler's engine and the configuration its leader publishes (its budgets, pace and windows), instead of handing them to graft-descheduler.")
	flags.Float64Var(&o.MigrationRate, "migration-rate", o.MigrationRate, "With --migrate, shoots migrated per second at most (0: no limit); graft-descheduler's evictionRate when not given.")
	flags.IntVar(&o.MigrationBurst, "migration-burst", o.MigrationBurst, "With --migrate, shoots migrated at once before --migration-rate applies; graft-descheduler's evictionBurst when not given.")
	flags.IntVar(&o.MaxInFlight, "max-in-flight", o.MaxInFlight, "With --migrate, start a migration only while fewer control-plane migrations than this are in flight in the garden, whoever started them (0: no limit); graft-descheduler's maxMigrationsInFlight when not given.")
	o.Live.AddFlag(flags)
	o.Scheduling.AddFlags(flags)
	livelandscape.AddRegionConfigNamespaceFlag(flags, &o.RegionConfigNamespace)
	seedcmd.AddDryRunFlag(cmd)
	return cmd
}

// Complete reads the seed name and flags and obtains the clients.
func (o *Options) Complete(f factory.Factory, cmd *cobra.Command, args []string) error {
	var err error
	if o.DryRun, err = seedcmd.DryRunFromCommand(cmd); err != nil {
		return err
	}
	if len(args) != 1 {
		return fmt.Errorf("exactly one seed name must be specified, got %d", len(args))
	}
	o.SeedName = args[0]
	o.paceSet = map[string]bool{}
	for _, name := range []string{"migration-rate", "migration-burst", "max-in-flight"} {
		o.paceSet[name] = cmd.Flags().Changed(name)
	}
	if o.Garden, err = f.Garden(); err != nil {
		return err
	}
	// Without a Kubernetes client no descheduler can be found; the flags
	// are checked first all the same.
	var kubeErr error
	o.Kube, kubeErr = f.KubeClient()
	if o.Garden.Mover().Migrates() && (o.Migrate || !o.InMaintenanceWindows) {
		// Where graft-descheduler runs, it makes the drain's moves under its
		// budgets; graftctl migrates them itself, with the same engine, only
		// when asked or when nothing else would.
		handOff := ""
		if !o.Migrate && kubeErr == nil {
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			handOff = o.deschedulerDrains(ctx)
		}
		o.migrates = o.Migrate || handOff == ""
		if !o.migrates {
			fmt.Fprintf(o.ErrOut, "%s\n", handOff)
		}
	}
	if err := o.checkAPI(); err != nil {
		return err
	}
	return kubeErr
}

// Validate checks the flags.
func (o *Options) Validate() error {
	if o.Timeout < 0 {
		return fmt.Errorf("--timeout must not be negative")
	}
	if o.LeaseCheckInterval <= 0 {
		return fmt.Errorf("--descheduler-lease-check-interval must be positive")
	}
	if o.MigrationRate < 0 {
		return fmt.Errorf("--migration-rate must not be negative")
	}
	if o.MigrationBurst < 1 {
		return fmt.Errorf("--migration-burst must be at least 1")
	}
	if o.MaxInFlight < 0 {
		return fmt.Errorf("--max-in-flight must not be negative")
	}
	if _, err := o.Live.Live(); err != nil {
		return err
	}
	switch {
	case o.Deadline < 0:
		return fmt.Errorf("--deadline must not be negative")
	case o.Deadline > 0 && !o.InMaintenanceWindows:
		return fmt.Errorf("--deadline bounds a drain in maintenance windows: add --in-maintenance-windows")
	case o.InMaintenanceWindows && o.Deadline == 0:
		return fmt.Errorf("--in-maintenance-windows needs --deadline (such as --deadline=72h): the shoots no window reached by then move at the deadline")
	}
	if err := livelandscape.ValidateRegionConfigNamespace(o.regionConfigNamespace()); err != nil {
		return err
	}
	if o.Scheduling == nil {
		return nil
	}
	return o.Scheduling.Validate()
}

// regionConfigNamespace is the flag's value, garden when the options were
// built without the command.
func (o *Options) regionConfigNamespace() string {
	if o.RegionConfigNamespace == "" {
		return corev1alpha1.GardenNamespace
	}
	return o.RegionConfigNamespace
}

// schedulingConfig is the configuration the algorithm is asked with, chosen
// on first use; that use prints which one it is (and a warning when the
// published one could not be used).
func (o *Options) schedulingConfig(ctx context.Context) algorithm.Config {
	if o.choice == nil {
		flags := o.Scheduling
		if flags == nil {
			flags = schedulingconfig.NewFlags()
		}
		c := flags.Choose(ctx, o.Kube.CoordinationV1())
		if c.Warning != "" {
			fmt.Fprintf(o.ErrOut, "Warning: %s\n", c.Warning)
		}
		o.printf("%s\n", c)
		o.choice = &c
	}
	return o.choice.Config
}

// afterCordon reads the landscape as it is once the seed is as given (seed,
// cordoned or drained, perhaps only in a dry run), with the shoots already
// waiting for a seed placed first, as graft-scheduler places them before any
// shoot the drain moves; it returns the seed's shoots in name order.
func (o *Options) afterCordon(ctx context.Context, client garden.Client, seed *corev1alpha1.Seed) (*livelandscape.Landscape, []*corev1alpha1.Shoot, error) {
	l, err := livelandscape.Load(ctx, client, o.Kube, o.schedulingConfig(ctx), o.regionConfigNamespace())
	if err != nil {
		return nil, nil, err
	}
	for _, w := range l.Warnings {
		fmt.Fprintf(o.ErrOut, "Warning: %s\n", w)
	}
	l = l.WithSeed(seed)
	algorithm.ReserveForWaiting(l.Snapshot, drainplan.PlacedBy(l.Shoots, o.choice.SchedulerName), l.Inputs)
	shoots := l.ShootsOn(o.SeedName)
	sortShoots(shoots)
	return l, shoots, nil
}

// Run drains the seed.
func (o *Options) Run(ctx context.Context) error {
	if o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Timeout)
		defer cancel()
	}
	if o.migrates {
		return o.migrate(ctx)
	}

	// The shoots on the seed before it is tainted: the descheduler may move
	// some of them before the watch below starts, and they still count.
	var before []*corev1alpha1.Shoot
	if o.DryRun == seedcmd.DryRunNone && o.Wait {
		var err error
		if before, err = o.shootsOnSeed(ctx); err != nil {
			return err
		}
	}

	seed, err := o.markDrained(ctx)
	if err != nil {
		return err
	}
	if o.DryRun != seedcmd.DryRunNone {
		if o.Plan || o.InMaintenanceWindows {
			return o.printPlan(ctx, seed)
		}
		return o.reportPlacements(ctx, seed)
	}
	if o.Plan {
		if err := o.printPlan(ctx, seed); err != nil {
			return err
		}
	}
	if !o.Wait {
		return nil
	}
	return o.wait(ctx, seed, before)
}

// markDrained writes the drain on the seed, as far as the dry run lets it:
// the deadline of a drain in windows first, so that graft-descheduler never
// sees a drain in windows as a plain one, then the cordon and the NoExecute
// taint. It returns the seed as the drain leaves it (in a dry run, as it
// would).
func (o *Options) markDrained(ctx context.Context) (*corev1alpha1.Seed, error) {
	suffix := o.DryRun.Suffix()
	var deadline *time.Time
	if o.InMaintenanceWindows {
		d := o.Clock.Now().Add(o.Deadline).UTC().Truncate(time.Second)
		deadline = &d
	}
	deadlined, changedDeadline, err := SetDrainDeadline(ctx, o.Garden, o.SeedName, deadline, o.DryRun)
	if err != nil {
		return nil, err
	}
	switch {
	case deadline != nil && changedDeadline:
		o.printf("seed/%s drained in maintenance windows until %s%s\n", o.SeedName, deadline.Format(time.RFC3339), suffix)
	case deadline != nil:
		o.printf("seed/%s already drained in maintenance windows until %s%s\n", o.SeedName, deadline.Format(time.RFC3339), suffix)
	case changedDeadline:
		o.printf("seed/%s no longer drained in maintenance windows: its shoots move now%s\n", o.SeedName, suffix)
	}
	var hadCordon, hadDrain bool
	edit := func(seed *corev1alpha1.Seed) ([]corev1alpha1.SeedTaint, bool, error) {
		hadCordon = seedcmd.HasTaint(seed.Spec.Taints, CordonTaint.Key, CordonTaint.Effect)
		hadDrain = seedcmd.HasTaint(seed.Spec.Taints, DrainTaint.Key, DrainTaint.Effect)
		return DrainedAt(seed.Spec.Taints, o.Clock.Now())
	}
	update, err := seedcmd.UpdateSeedTaints(ctx, o.Garden, o.SeedName, o.DryRun, edit, edit)
	if err != nil {
		return nil, err
	}
	if c := update.Config; c != nil && c.HasSeedConfig {
		word := map[bool]string{true: "drained", false: "already drained"}[update.ConfigChanged]
		o.printf("%s %s%s\n", c, word, suffix)
	}
	if update.Changed && !update.Lasting(o.Garden.API()) {
		seedcmd.WarnPassing(o.ErrOut, []string{o.SeedName})
	}
	seed := update.Seed
	if o.DryRun != seedcmd.DryRunNone && deadlined != nil {
		// A dry run wrote no deadline: the plan reads it from the seed.
		seed = seed.DeepCopy()
		seed.Annotations = deadlined.Annotations
	}
	if hadCordon {
		o.printf("seed/%s already cordoned%s\n", o.SeedName, suffix)
	} else {
		o.printf("seed/%s cordoned%s\n", o.SeedName, suffix)
	}
	if hadDrain {
		o.printf("seed/%s already marked for eviction (%s)%s\n", o.SeedName, helper.FormatTaint(DrainTaint), suffix)
	} else {
		o.printf("seed/%s marked for eviction (%s)%s\n", o.SeedName, helper.FormatTaint(DrainTaint), suffix)
	}
	return seed, nil
}

// checkAPI refuses the combinations of API and flags that cannot drain:
// --migrate on graft's API, where graft-descheduler evicts and graft-scheduler
// places; on Gardener a drain without --migrate (other than a dry run), since
// its taints evict nothing.
func (o *Options) checkAPI() error {
	switch {
	case !o.migrates && o.Migrate:
		return fmt.Errorf("--migrate works on a Gardener garden (%s) only: on graft's API (%s) drain marks the seed for eviction and graft-descheduler evicts its shoots, which graft-scheduler places elsewhere; run 'graftctl drain %s' without --migrate",
			garden.Gardener, o.Garden.API(), o.SeedName)
	case !o.migrates:
		return nil
	case !o.Migrate && o.DryRun == seedcmd.DryRunNone && !o.InMaintenanceWindows:
		return fmt.Errorf("on a Gardener garden (%s) drain moves shoots by migrating their control planes: graft-descheduler makes the migrations where it runs (its Lease %s/%s shows none running with a published configuration), otherwise --migrate makes them from here; Gardener's seed taints evict nothing and Gardener refuses to clear spec.seedName. Run 'graftctl drain %s --dry-run' to see where each shoot would go, then 'graftctl drain %s --migrate' ('graftctl cordon %s' only keeps new shoots off)",
			garden.Gardener, o.LeaseNamespace, o.LeaseName, o.SeedName, o.SeedName, o.SeedName)
	}
	return nil
}

func (o *Options) printf(format string, args ...any) {
	fmt.Fprintf(o.Out, format, args...)
}
