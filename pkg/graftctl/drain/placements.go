package drain

import (
	"context"
	"fmt"
	"sort"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"

	"github.com/graft-dev/graft/pkg/algorithm"
	"github.com/graft-dev/graft/pkg/garden"
	"github.com/graft-dev/graft/pkg/graftctl/drainplan"
	"github.com/graft-dev/graft/pkg/graftctl/livelandscape"
	"github.com/graft-dev/graft/pkg/taintclock"
)

// fate is what the drain taints mean for one shoot on the seed.
type fate struct {
	// stays is set when the shoot tolerates every NoExecute taint for ever.
	stays bool
	// until is set when a toleration lets the shoot stay until then.
	until *time.Time
}

// fateOf applies the seed's NoExecute taints to a shoot: a toleration counts
// from the taint's timeAdded, or from taintedAt for a taint without one, or
// from the shoot's placement on the seed (graft.dev/placed-on) when that is
// later (see taintclock.Start), as graft-descheduler counts it.
func fateOf(shoot *corev1alpha1.Shoot, seed *corev1alpha1.Seed, taintedAt time.Time) fate {
	placed, _ := helper.PlacedOn(shoot, seed.Name)
	status := algorithm.CheckNoExecute(shoot, seed, func(t corev1alpha1.SeedTaint) time.Time {
		return taintclock.Start(t, taintedAt, placed)
	})
	switch {
	case len(status.Untolerated) > 0:
		return fate{}
	case status.LimitingTaint != nil:
		until := status.StayUntil
		return fate{until: &until}
	default:
		return fate{stays: true}
	}
}

func (o *Options) shootsOnSeed(ctx context.Context) ([]*corev1alpha1.Shoot, error) {
	list, err := o.Garden.ListShoots(ctx, metav1.NamespaceAll, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	var out []*corev1alpha1.Shoot
	for i := range list {
		if s := list[i].Spec.SeedName; s != nil && *s == o.SeedName {
			out = append(out, &list[i])
		}
	}
	sortShoots(out)
	return out, nil
}

func sortShoots(shoots []*corev1alpha1.Shoot) {
	sort.Slice(shoots, func(i, j int) bool { return algorithm.ShootKey(shoots[i]) < algorithm.ShootKey(shoots[j]) })
}

// reportPlacements answers --dry-run: for every shoot on the drained seed,
// where the algorithm would place it now, or why it cannot move. Shoots are
// placed one after the other, in name order, each counting on its new seed
// for the next decisions, as they would when the descheduler evicts them.
func (o *Options) reportPlacements(ctx context.Context, drained *corev1alpha1.Seed) error {
	l, shoots, err := o.afterCordon(ctx, o.Garden, drained)
	if err != nil {
		return err
	}
	now := o.Clock.Now()
	var move, stuck, stay int
	for _, shoot := range shoots {
		key := algorithm.ShootKey(shoot)
		f := fateOf(shoot, drained, now)
		if f.stays {
			stay++
			o.printf("shoot/%s tolerates %s and stays on seed/%s\n", key, helper.FormatTaint(drainTaintOf(drained)), o.SeedName)
			continue
		}
		when := ""
		if f.until != nil {
			when = fmt.Sprintf(" after its toleration ends at %s", f.until.UTC().Format(time.RFC3339))
		}
		target, err := placeElsewhere(l, shoot, o.SeedName)
		if err != nil {
			stuck++
			o.printf("shoot/%s cannot move%s: %s\n", key, when, algorithm.ShortReason(err))
			continue
		}
		move++
		o.printf("shoot/%s would move to seed/%s%s\n", key, target, when)
		moved := shoot.DeepCopy()
		moved.Spec.SeedName = &target
		moved.Status.SeedName = &target
		l.Snapshot.UpdateShoot(shoot, moved)
	}
	o.printf("%d shoot(s) on seed/%s: %d would move, %d cannot move, %d stay%s\n", len(shoots), o.SeedName, move, stuck, stay, o.DryRun.Suffix())
	return nil
}

// placeElsewhere asks the algorithm where the shoot would go if it left seedName.
func placeElsewhere(l *livelandscape.Landscape, shoot *corev1alpha1.Shoot, seedName string) (string, error) {
	in, err := l.Inputs(shoot)
	if err != nil {
		return "", err
	}
	return algorithm.FitsElsewhere(shoot, l.Snapshot, in, seedName)
}

// drainTaintOf returns the seed's drain taint as stored, for messages.
func drainTaintOf(seed *corev1alpha1.Seed) corev1alpha1.SeedTaint {
	for _, t := range seed.Spec.Taints {
		if t.Key == corev1alpha1.SeedTaintUnschedulable && helper.TaintEffectOf(t) == corev1alpha1.TaintEffectNoExecute {
			return t
		}
	}
	return corev1alpha1.SeedTaint{Key: corev1alpha1.SeedTaintUnschedulable, Effect: corev1alpha1.TaintEffectNoExecute}
}

// printPlan prints the drain's plan (drainplan): for each shoot on the
// seed, where it goes, when, how and why.
func (o *Options) printPlan(ctx context.Context, drained *corev1alpha1.Seed) error {
	_, err := o.printedPlan(ctx, drained)
	return err
}

// printedPlan prints the drain's plan and returns it.
func (o *Options) printedPlan(ctx context.Context, drained *corev1alpha1.Seed) ([]drainplan.Entry, error) {
	entries, err := o.plan(ctx, drained)
	if err != nil {
		return nil, err
	}
	if err := drainplan.Print(o.Out, entries); err != nil {
		return nil, err
	}
	o.printf("%s on seed/%s%s\n", drainplan.Summary(entries), o.SeedName, o.DryRun.Suffix())
	if s := drainplan.LiveSummary(entries); s != "" {
		o.printf("%s\n", s)
	}
	return entries, nil
}

// plan computes the drain's plan with graft-descheduler's published
// configuration, warning of what it assumes for want of it.
func (o *Options) plan(ctx context.Context, drained *corev1alpha1.Seed) ([]drainplan.Entry, error) {
	l, _, err := o.afterCordon(ctx, o.Garden, drained)
	if err != nil {
		return nil, err
	}
	d, err := o.Live.Descheduler(ctx, o.Kube.CoordinationV1(), o.LeaseNamespace, o.LeaseName, garden.APIOf(l))
	if err != nil {
		return nil, err
	}
	for _, note := range d.Notes {
		fmt.Fprintf(o.ErrOut, "Warning: %s\n", note)
	}
	return drainplan.Plan(l, drained, d, o.Clock.Now())
}
