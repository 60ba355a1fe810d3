package drainplan

import (
	"context"
	"fmt"
	"io"
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
	"github.com/graft-dev/graft/pkg/descheduler/framework"
	"github.com/graft-dev/graft/pkg/descheduler/plugins/noexecutetaints"
	"github.com/graft-dev/graft/pkg/graftctl/livelandscape"
	"github.com/graft-dev/graft/pkg/maintenance"
	"github.com/graft-dev/graft/pkg/taintclock"
)

// How a shoot leaves the seed.
const (
	// Evict clears the shoot's seed (graft's API); graft-scheduler places it.
	Evict = "evict"
	// Classic is a control-plane migration with API-server downtime.
	Classic = "classic"
	// Live is a live control-plane migration (GEP-39).
	Live = "live"
	// Stay is a shoot that tolerates the drain and stays.
	Stay = "stays"
)

// Entry is one shoot's part in the drain.
type Entry struct {
	Shoot *corev1alpha1.Shoot
	// Destination is the seed the algorithm chooses now; "" when none fits
	// (NoFit says why) or the shoot stays.
	Destination string
	NoFit       error
	// When is when the shoot moves.
	When maintenance.When
	// How is Evict, Classic, Live or Stay.
	How string
	// Why says what decides When.
	Why string
	// LiveBlocker, in a plan that prefers live migrations, is the first
	// thing that keeps the move from being timed as live; "" for a live
	// move or a plan without live migrations.
	LiveBlocker string
}

// Plan computes the drain of seed (as it is, or as the drain would make it)
// on the landscape: each shoot on it, by name as graft-descheduler orders
// them (framework.OrderMoves: failed ones last, a project's hibernated ones
// before its running ones), each timed by maintenance.Move as the pass
// times it, placed one after the other, each
// counting on its destination for the next. The landscape's snapshot is
// changed: give it one read for the plan.
//
// With live (graft-descheduler's liveMigration Prefer, on Gardener) a shoot
// that meets GEP-39's prerequisites goes first to a seed that takes its
// control plane live; it goes at once only when both seeds' gardenlets are
// known to run the live flow (live's evidence), as graft-descheduler times
// it: otherwise it is the classic migration gardenlet will run, and its
// LiveBlocker says why.
func Plan(l *livelandscape.Landscape, seed *corev1alpha1.Seed, shoots []*corev1alpha1.Shoot, now time.Time, live *algorithm.LiveFlow) []Entry {
	byName := slices.Clone(shoots)
	slices.SortStableFunc(byName, func(a, b *corev1alpha1.Shoot) int {
		return strings.Compare(algorithm.ShootKey(a), algorithm.ShootKey(b))
	})
	ordered := framework.OrderMoves(byName, func(s *corev1alpha1.Shoot) *corev1alpha1.Shoot { return s })
	_, _, invalid := noexecutetaints.DrainInWindows(seed)
	how := Evict
	if l.Migration() {
		how = Classic
	}
	out := make([]Entry, 0, len(ordered))
	for _, shoot := range ordered {
		e := Entry{Shoot: shoot, How: how}
		placed, _ := helper.PlacedOn(shoot, seed.Name)
		status := algorithm.CheckNoExecute(shoot, seed, func(t corev1alpha1.SeedTaint) time.Time {
			return taintclock.Start(t, now, placed)
		})
		from, cause := now, corev1alpha1.SeedTaint{}
		switch {
		case len(status.Untolerated) > 0:
			cause = noexecutetaints.UrgentFirst(seed, status.Untolerated)
		case status.LimitingTaint != nil:
			from, cause = status.StayUntil, *status.LimitingTaint
		default:
			e.How, e.Why = Stay, "tolerates the seed's NoExecute taints"
			out = append(out, e)
			continue
		}
		urgency, deadline := noexecutetaints.MoveUrgency(seed, cause)
		move, _ := maintenance.MoveOf(shoot, urgency, deadline)
		e.When = move.At(from)
		e.When.Now = !e.When.Held && !e.When.At.After(now)
		e.Why = e.When.Why
		if from.After(now) {
			e.Why = fmt.Sprintf("its toleration runs out at %s; then %s", stamp(from), e.Why)
		}
		if invalid != "" {
			e.Why += "; " + invalid
		}
		in, err := l.Inputs(shoot)
		placedLive := false
		if err == nil && live != nil && l.Migration() {
			switch e.LiveBlocker = algorithm.ShootLiveMigrationBlocker(shoot); {
			case e.When.Held:
				e.LiveBlocker = "its last operation failed"
			case e.LiveBlocker != "":
			default:
				dest, ok := liveDestination(l, shoot, seed, in)
				if !ok {
					e.LiveBlocker = "no seed that fits takes its control plane live"
					break
				}
				e.Destination, placedLive = dest, true
				to, _ := l.Snapshot.Seed(dest)
				if e.LiveBlocker = live.SeedBlocker(seed, to); e.LiveBlocker == "" {
					e.How = Live
					e.When = maintenance.Live(from)
					e.When.Now = !from.After(now)
					e.Why = e.When.Why
				}
			}
			if e.LiveBlocker != "" {
				e.Why += "; not live: " + e.LiveBlocker
			}
		}
		if err == nil && !placedLive {
			e.Destination, err = algorithm.FitsElsewhere(shoot, l.Snapshot, in, seed.Name)
		}
		if err != nil {
			e.NoFit = err
			out = append(out, e)
			continue
		}
		moved := shoot.DeepCopy()
		moved.Spec.SeedName = &e.Destination
		moved.Status.SeedName = &e.Destination
		l.Snapshot.UpdateShoot(shoot, moved)
		out = append(out, e)
	}
	return out
}

// liveDestination is where the algorithm sends the shoot among the seeds
// that take its control plane live, as graft-descheduler chooses it.
func liveDestination(l *livelandscape.Landscape, shoot *corev1alpha1.Shoot, from *corev1alpha1.Seed, in algorithm.Inputs) (string, bool) {
	regions := in.Regions()
	in.Evacuating = func(name string) bool {
		to, ok := l.Snapshot.Seed(name)
		return !ok || algorithm.LiveMigrationBlocker(shoot, from, to, regions) != ""
	}
	dest, err := algorithm.FitsElsewhere(shoot, l.Snapshot, in, from.Name)
	return dest, err == nil
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
		case e.NoFit != nil:
			dest = "<none>"
			why = "no other seed fits: " + algorithm.ShortReason(e.NoFit)
		}
		switch {
		case e.When.Now || e.How == Stay:
		case e.When.Held && e.When.At.IsZero():
			when = "once healthy"
		default:
			when = stamp(e.When.At)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", algorithm.ShootKey(e.Shoot), dest, when, e.How, why)
	}
	return w.Flush()
}

// Summary counts the plan: shoots moving now, later, stuck with no seed
// that fits, and staying.
func Summary(entries []Entry) string {
	var now, later, noFit, stay int
	for _, e := range entries {
		switch {
		case e.How == Stay:
			stay++
		case e.NoFit != nil:
			noFit++
		case e.When.Now:
			now++
		default:
			later++
		}
	}
	return fmt.Sprintf("%d shoot(s): %d move now, %d later, %d cannot move, %d stay", len(entries), now, later, noFit, stay)
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
	if f.Mode == "" {
		f.Mode = string(configv1alpha1.LiveMigrationNever)
	}
	flags.StringVar(&f.Mode, "live-migration", f.Mode, "graft-descheduler's liveMigration (Never or Prefer), for the plan: with Prefer a shoot that meets GEP-39's prerequisites goes to a seed that takes it live, and at once only between gardenlets known to run the live flow (--live-gardenlet-versions).")
	flags.StringSliceVar(&f.Versions, "live-gardenlet-versions", f.Versions, "graft-descheduler's liveMigrationGardenletVersions, for the plan: the gardenlet versions known to run GEP-39's live flow (none in Gardener v1.150.0).")
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
