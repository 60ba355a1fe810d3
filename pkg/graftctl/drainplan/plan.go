package drainplan

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"
	"github.com/spf13/pflag"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"

	"github.com/graft-dev/graft/pkg/algorithm"
	"github.com/graft-dev/graft/pkg/descheduler"
	"github.com/graft-dev/graft/pkg/descheduler/plugins/noexecutetaints"
	"github.com/graft-dev/graft/pkg/garden"
	"github.com/graft-dev/graft/pkg/graftctl/livelandscape"
	"github.com/graft-dev/graft/pkg/maintenance"
)

// How a shoot leaves the seed.
const (
	// Evict clears the shoot's seed (graft's API); graft-scheduler places it.
	Evict = "evict"
	// Classic is a control-plane migration with API-server downtime.
	Classic = "classic"
	// Live is a live control-plane migration (GEP-39).
	Live = "live"
	// Stay is a shoot the plan does not move.
	Stay = "stays"
)

// Entry is one shoot's part in the drain.
type Entry struct {
	Shoot *corev1alpha1.Shoot
	// Destination is where the shoot goes: the seed graft-descheduler
	// migrates it to, or on graft's API the seed the scheduler binds it to;
	// "" when none does by the plan's end.
	Destination string
	// At is when graft-descheduler moves it; zero when it does not within
	// the plan (Held says why, or it stays).
	At time.Time
	// Now is set for a move at the plan's start.
	Now bool
	// How is Evict, Classic, Live or Stay.
	How string
	// Why says what decides At, or what holds the shoot.
	Why string
	// Held is set for a shoot graft-descheduler wants to move and still
	// holds at the plan's end.
	Held bool
	// LiveBlocker, in a plan that prefers live migrations, is the first
	// thing that keeps the move from being live; "" for a live move or a
	// plan without live migrations.
	LiveBlocker string
}

// Horizon is how far a drain plan looks ahead of its start: every
// maintenance window comes once in it, with a day to spare.
const Horizon = 48 * time.Hour

// Plan computes the drain of seed (as it is, or as the drain would make it)
// on the landscape with graft-descheduler's own planner
// (descheduler.ComputePlan), its configuration and live evidence (d): from
// now until Horizon later, or an hour past the drain's deadline when that is
// later. It returns the shoots on the seed in the order they move, then
// those it still holds at the end, then those that stay.
func Plan(l *livelandscape.Landscape, seed *corev1alpha1.Seed, d *Descheduler, now time.Time) ([]Entry, error) {
	until := now.Add(Horizon)
	if deadline, _, _ := noexecutetaints.DrainInWindows(seed); deadline.Add(time.Hour).After(until) {
		until = deadline.Add(time.Hour)
	}
	seeds := slices.Clone(l.Seeds)
	for i, s := range seeds {
		if s.Name == seed.Name {
			seeds[i] = seed
		}
	}
	plan, err := descheduler.ComputePlan(seeds, l.Shoots, now, descheduler.PlanOptions{
		Config: d.Config, Scheduling: &l.Config, Landscape: l, Live: d.Live, Until: until,
	})
	if err != nil {
		return nil, err
	}
	on := map[string]*corev1alpha1.Shoot{}
	for _, s := range l.ShootsOn(seed.Name) {
		on[algorithm.ShootKey(s)] = s
	}
	how := Evict
	if plan.Migrates {
		how = Classic
	}
	out := make([]Entry, 0, len(on))
	for _, m := range plan.Moves {
		key := algorithm.ShootKey(m.Shoot)
		if m.From != seed.Name || on[key] == nil {
			continue
		}
		delete(on, key)
		e := Entry{Shoot: m.Shoot, Destination: m.To, At: m.At, Now: !m.At.After(now), How: how, Why: m.Why}
		switch {
		case !e.Now && m.Waited != "":
			e.Why = m.Waited
		case m.Why == maintenance.Urgent.String():
			// An urgent move goes at once: its reason says why.
			e.Why = m.Why + ": " + m.Reason
		}
		if m.Live {
			e.How = Live
		} else if d.Live != nil && how == Classic {
			// The one reason, said once.
			e.Why, _, _ = strings.Cut(e.Why, "; not timed as live: ")
			e.LiveBlocker = liveBlocker(l, d.Live, m.Shoot, seed, m.To)
			e.Why += "; not live: " + e.LiveBlocker
		}
		out = append(out, e)
	}
	for _, w := range plan.Waiting {
		key := algorithm.ShootKey(w.Shoot)
		if w.Seed != seed.Name || on[key] == nil {
			continue
		}
		delete(on, key)
		out = append(out, Entry{Shoot: w.Shoot, How: how, Held: true, Why: w.Why, At: w.Next})
	}
	staying := slices.Collect(maps.Values(on))
	slices.SortFunc(staying, func(a, b *corev1alpha1.Shoot) int {
		return strings.Compare(algorithm.ShootKey(a), algorithm.ShootKey(b))
	})
	for _, s := range staying {
		why := fmt.Sprintf("no move before %s", stamp(until))
		if status := algorithm.CheckNoExecute(s, seed, func(corev1alpha1.SeedTaint) time.Time { return now }); len(status.Untolerated) == 0 && status.LimitingTaint == nil {
			why = "tolerates the seed's NoExecute taints"
		}
		out = append(out, Entry{Shoot: s, How: Stay, Why: why})
	}
	return out, nil
}

// liveBlocker says what keeps a classic move from going live.
func liveBlocker(l *livelandscape.Landscape, flow *algorithm.LiveFlow, shoot *corev1alpha1.Shoot, from *corev1alpha1.Seed, to string) string {
	if why := algorithm.ShootLiveMigrationBlocker(shoot); why != "" {
		return why
	}
	in, err := l.Inputs(shoot)
	if err != nil {
		return err.Error()
	}
	dest, _ := l.Snapshot.Seed(to)
	if why := flow.MoveBlocker(shoot, from, dest, in.Regions()); why != "" {
		return why
	}
	if maintenance.LastOperationFailed(shoot) {
		return "its last operation failed"
	}
	return "no seed that fits takes its control plane live"
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// Print writes the plan as a table: SHOOT, DESTINATION, WHEN, HOW and WHY.
func Print(out io.Writer, entries []Entry) error {
	w := tabwriter.NewWriter(out, 0, 8, 2, ' ', 0)
	fmt.Fprintln(w, "SHOOT\tDESTINATION\tWHEN\tHOW\tWHY")
	for _, e := range entries {
		dest, when, why := e.Destination, "now", e.Why
		switch {
		case e.How == Stay:
			dest, when = "-", "-"
		case e.Held:
			dest, when = "<none>", "-"
			if !e.At.IsZero() {
				when = stamp(e.At)
			}
		case dest == "":
			dest = "<none>"
		}
		if !e.Now && !e.Held && e.How != Stay {
			when = stamp(e.At)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", algorithm.ShootKey(e.Shoot), dest, when, e.How, why)
	}
	return w.Flush()
}

// Summary counts the plan: shoots moving now, later, held to the plan's end,
// and staying.
func Summary(entries []Entry) string {
	var now, later, held, stay int
	for _, e := range entries {
		switch {
		case e.How == Stay:
			stay++
		case e.Held:
			held++
		case e.Now:
			now++
		default:
			later++
		}
	}
	return fmt.Sprintf("%d shoot(s): %d move now, %d later, %d cannot move, %d stay", len(entries), now, later, held, stay)
}

// LiveSummary counts, in a plan that prefers live migrations, the moves
// timed as live and the rest, and names the blocker that keeps the most
// moves from going live: the one change that would make the most of them
// live. "" for a plan without live migrations.
func LiveSummary(entries []Entry) string {
	var blockers []string
	for _, e := range entries {
		switch {
		case e.How == Live:
			blockers = append(blockers, "")
		case e.LiveBlocker != "" && e.How != Stay:
			blockers = append(blockers, e.LiveBlocker)
		}
	}
	return LiveSummaryOf(blockers)
}

// LiveSummaryOf is LiveSummary of moves given by their live blockers, ""
// for a live one: the moves live, and the blocker of the most of the rest.
// "" when there are none.
func LiveSummaryOf(blockers []string) string {
	if len(blockers) == 0 {
		return ""
	}
	live, blocked := 0, map[string]int{}
	for _, b := range blockers {
		if b == "" {
			live++
		} else {
			blocked[b]++
		}
	}
	out := fmt.Sprintf("%d move(s) live", live)
	top, n := "", 0
	for why, k := range blocked {
		if k > n || k == n && why < top {
			top, n = why, k
		}
	}
	if n > 0 {
		out += fmt.Sprintf("; %d more would go live without: %s", n, top)
	}
	return out
}

// LiveFlag is the --live-migration and --live-gardenlet-versions flags of
// the commands that print a plan: graft-descheduler's liveMigration and
// liveMigrationGardenletVersions, which graftctl cannot read.
type LiveFlag struct {
	Mode     string
	Versions []string
}

// AddFlag adds --live-migration and --live-gardenlet-versions.
func (f *LiveFlag) AddFlag(flags *pflag.FlagSet) {
	flags.StringVar(&f.Mode, "live-migration", f.Mode, "graft-descheduler's liveMigration (Never or Prefer) for the plan; drain and describe take the one its leader publishes on its Lease unless this is given. With Prefer a shoot that meets GEP-39's prerequisites goes to a seed that takes it live, and at once only between gardenlets known to run the live flow (--live-gardenlet-versions).")
	flags.StringSliceVar(&f.Versions, "live-gardenlet-versions", f.Versions, "With --live-migration, the liveMigrationGardenletVersions of the plan: the gardenlet versions known to run GEP-39's live flow (none in Gardener v1.150.0).")
}

// Live is the evidence the plan times live moves by, nil when the plan does
// not prefer live migrations, or why the flags are invalid.
func (f *LiveFlag) Live() (*algorithm.LiveFlow, error) {
	switch configv1alpha1.LiveMigrationMode(f.Mode) {
	case "", configv1alpha1.LiveMigrationNever:
		if len(f.Versions) > 0 {
			return nil, fmt.Errorf("--live-gardenlet-versions needs --live-migration=%s", configv1alpha1.LiveMigrationPrefer)
		}
		return nil, nil
	case configv1alpha1.LiveMigrationPrefer:
		if errs := configv1alpha1.ValidateGardenletVersions(f.Versions, field.NewPath("--live-gardenlet-versions")); len(errs) > 0 {
			return nil, errs.ToAggregate()
		}
		return &algorithm.LiveFlow{Declared: sets.New(f.Versions...)}, nil
	}
	return nil, fmt.Errorf("--live-migration must be %s or %s, not %q", configv1alpha1.LiveMigrationNever, configv1alpha1.LiveMigrationPrefer, f.Mode)
}

// Evidence is Live with what graft-descheduler's leader recorded on its
// Lease (namespace/name, algorithm.LiveRecordAnnotation): the gardenlet
// versions seen running the live flow, and the version pairs that fell back
// while it declared what --live-gardenlet-versions declares, so that the
// plan times moves as the descheduler does. note says why the record was
// not used, "" when it was or there is none.
func (f *LiveFlag) Evidence(ctx context.Context, leases coordinationv1client.LeasesGetter, namespace, name string) (flow *algorithm.LiveFlow, note string, err error) {
	flow, err = f.Live()
	if flow == nil || err != nil {
		return flow, "", err
	}
	lease, err := leases.Leases(namespace).Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return flow, "", nil
	case err != nil:
		return flow, fmt.Sprintf("graft-descheduler's live migration record could not be read (%v): the plan knows no fallbacks", err), nil
	}
	value, ok := lease.Annotations[algorithm.LiveRecordAnnotation]
	if !ok {
		return flow, "", nil
	}
	rec, err := algorithm.DecodeLiveRecord(value)
	if err != nil {
		return flow, fmt.Sprintf("Lease %s/%s: %v: the plan knows no fallbacks", namespace, name, err), nil
	}
	recorded := rec.Flow(f.Versions)
	recorded.Declared = flow.Declared
	if !rec.SameDeclaration(f.Versions) && len(rec.FellBack) > 0 {
		note = fmt.Sprintf("graft-descheduler recorded %d fallback(s) while declaring liveMigrationGardenletVersions %v, not --live-gardenlet-versions %v: they are not counted", len(rec.FellBack), rec.Declared, f.Versions)
	}
	return &recorded, note, nil
}

// Descheduler is what a plan is computed with: graft-descheduler's
// configuration as its leader published it on its Lease (or its defaults),
// the live migration flags applied, and the evidence of live moves.
type Descheduler struct {
	Config *configv1alpha1.DeschedulerConfiguration
	Live   *algorithm.LiveFlow
	// Notes say what the plan assumes for want of what the Lease should
	// hold, for a warning.
	Notes []string
}

// Descheduler reads graft-descheduler's Lease (namespace/name): the
// configuration its leader published (descheduler.ConfigurationAnnotation),
// the live migration flags overriding its liveMigration, and its live
// migration record (Evidence). Without a usable configuration the plan uses
// the defaults for the API, and a note says why.
func (f *LiveFlag) Descheduler(ctx context.Context, leases coordinationv1client.LeasesGetter, namespace, name string, api garden.API) (*Descheduler, error) {
	d := &Descheduler{}
	lease, err := leases.Leases(namespace).Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		d.Notes = append(d.Notes, fmt.Sprintf("graft-descheduler's Lease %s/%s does not exist: the plan assumes its default configuration", namespace, name))
	case err != nil:
		d.Notes = append(d.Notes, fmt.Sprintf("graft-descheduler's Lease %s/%s could not be read (%v): the plan assumes its default configuration", namespace, name, err))
	default:
		value, ok := lease.Annotations[descheduler.ConfigurationAnnotation]
		if !ok {
			d.Notes = append(d.Notes, fmt.Sprintf("graft-descheduler publishes no configuration on Lease %s/%s (an older version, or leader election off): the plan assumes its defaults", namespace, name))
			break
		}
		if d.Config, err = descheduler.DecodeConfiguration(value); err != nil {
			d.Notes = append(d.Notes, fmt.Sprintf("graft-descheduler's configuration on Lease %s/%s cannot be used (%v): the plan assumes its defaults", namespace, name, err))
		}
	}
	if d.Config == nil {
		d.Config = &configv1alpha1.DeschedulerConfiguration{API: configv1alpha1.SchedulerAPI(api)}
		d.Config.Default()
	}
	if d.Config.DryRun {
		d.Notes = append(d.Notes, "graft-descheduler runs in dry-run mode: it makes none of the moves planned")
	}
	g := *f
	if g.Mode == "" {
		g.Mode, g.Versions = string(d.Config.LiveMigration), d.Config.LiveMigrationGardenletVersions
	}
	if _, err := g.Live(); err != nil {
		return nil, err
	}
	d.Config.LiveMigration, d.Config.LiveMigrationGardenletVersions = configv1alpha1.LiveMigrationMode(g.Mode), g.Versions
	live, note, err := g.Evidence(ctx, leases, namespace, name)
	if err != nil {
		return nil, err
	}
	if note != "" {
		d.Notes = append(d.Notes, note)
	}
	d.Live = live
	return d, nil
}

// PlacedBy are the shoots the named scheduler places (graft-scheduler's
// name as its Lease publishes it): a waiting shoot of another scheduler
// takes no slot from a drain, as graft-descheduler counts it
// (schedulerNames). An empty name (not published) keeps them all.
func PlacedBy(shoots []*corev1alpha1.Shoot, schedulerName string) []*corev1alpha1.Shoot {
	if schedulerName == "" {
		return shoots
	}
	var out []*corev1alpha1.Shoot
	for _, s := range shoots {
		if helper.ShootSchedulerName(s) == schedulerName {
			out = append(out, s)
		}
	}
	return out
}
