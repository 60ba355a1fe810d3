package drainplan

import (
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
// control plane live, and then at once: a live migration needs no window.
func Plan(l *livelandscape.Landscape, seed *corev1alpha1.Seed, shoots []*corev1alpha1.Shoot, now time.Time, live bool) []Entry {
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
		if err == nil && live && !e.When.Held && l.Migration() && algorithm.ShootLiveMigrationBlocker(shoot) == "" {
			if dest, ok := liveDestination(l, shoot, seed, in); ok {
				e.Destination, e.How = dest, Live
				e.When = maintenance.When{Now: true, At: from, Why: "a live migration disrupts nobody"}
				e.When.Now = !from.After(now)
				e.Why = e.When.Why
			}
		}
		if err == nil && e.How != Live {
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

// LiveFlag is the --live-migration flag of the commands that print a plan:
// graft-descheduler's liveMigration, which graftctl cannot read.
type LiveFlag struct{ Mode string }

// AddFlag adds --live-migration.
func (f *LiveFlag) AddFlag(flags *pflag.FlagSet) {
	if f.Mode == "" {
		f.Mode = string(configv1alpha1.LiveMigrationNever)
	}
	flags.StringVar(&f.Mode, "live-migration", f.Mode, "graft-descheduler's liveMigration (Never or Prefer), for the plan: with Prefer a shoot that meets GEP-39's prerequisites moves live, at once, where a seed takes it live.")
}

// Live reports whether the plan prefers live migrations, or why the flag is
// invalid.
func (f *LiveFlag) Live() (bool, error) {
	switch configv1alpha1.LiveMigrationMode(f.Mode) {
	case "", configv1alpha1.LiveMigrationNever:
		return false, nil
	case configv1alpha1.LiveMigrationPrefer:
		return true, nil
	}
	return false, fmt.Errorf("--live-migration must be %s or %s, not %q", configv1alpha1.LiveMigrationNever, configv1alpha1.LiveMigrationPrefer, f.Mode)
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
