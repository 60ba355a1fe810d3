package drain

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/time/rate"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"

	"github.com/graft-dev/graft/pkg/algorithm"
	"github.com/graft-dev/graft/pkg/graftctl/livelandscape"
	"github.com/graft-dev/graft/pkg/graftctl/seedcmd"
)

// migration counts what a drain by migration did with the seed's shoots.
type migration struct {
	total, moved, cannotMove, refused, failed, deleting int
}

// left is the number of shoots that should have left the seed and did not.
func (m migration) left() int { return m.cannotMove + m.refused + m.failed }

// migrate drains a seed of a Gardener garden: it cordons the seed, then moves
// each shoot's control plane, in name order, to the seed the algorithm
// chooses for it, each move counting on its new seed for the next decisions.
// A shoot that fits nowhere else stays (requireFit, as graft-descheduler
// requires it); Gardener's refusals are explained per shoot. With --dry-run
// nothing is written: the client strategy predicts Gardener's answer, the
// server strategy sends each binding with dryRun=All so that Gardener's
// admission gives it, and both print the same lines for the same answer.
func (o *Options) migrate(ctx context.Context) error {
	mover := o.Garden.Mover()
	cordon, err := Set(ctx, o.Garden, o.SeedName, true, o.DryRun)
	if err != nil {
		return err
	}
	seed, suffix := cordon.Seed, o.DryRun.Suffix()
	if c := cordon.Config; c != nil && c.HasSeedConfig {
		o.printf("%s %s%s\n", c, cordon.Operation, suffix)
	}
	o.printf("seed/%s %s%s\n", o.SeedName, cordon.Operation, suffix)
	if cordon.Changed && !cordon.Lasting(o.Garden.API()) {
		seedcmd.WarnPassing(o.ErrOut, []string{o.SeedName})
	}

	l, shoots, err := o.afterCordon(ctx, o.Garden, seed)
	if err != nil {
		return err
	}
	if o.DryRun == seedcmd.DryRunNone {
		o.printf("%d shoot(s) to migrate off seed/%s\n", len(shoots), o.SeedName)
	}

	limit := rate.Inf
	if o.MigrationRate > 0 {
		limit = rate.Limit(o.MigrationRate)
	}
	limiter := rate.NewLimiter(limit, max(o.MigrationBurst, 1))
	m := migration{total: len(shoots)}
	var f *flights
	if o.DryRun == seedcmd.DryRunNone && (o.Wait || o.MaxInFlight > 0) {
		var stop func()
		if f, stop, err = o.watchFlights(ctx); err != nil {
			return err
		}
		defer stop()
	}
	for i, shoot := range shoots {
		key := algorithm.ShootKey(shoot)
		if shoot.DeletionTimestamp != nil {
			m.deleting++
			o.printf("shoot/%s is being deleted and leaves the seed with its deletion\n", key)
			continue
		}
		target, err := placeElsewhere(l, shoot, o.SeedName)
		if err != nil {
			m.cannotMove++
			o.printf("shoot/%s cannot move: %s%s\n", key, algorithm.ShortReason(err), migrationRefusals(err))
			continue
		}
		if o.DryRun == seedcmd.DryRunClient {
			// The algorithm chose a seed Gardener's migration rules accept.
			m.moved++
			o.printf("shoot/%s would move to seed/%s\n", key, target)
			countOn(l, shoot, target)
			continue
		}
		if f != nil {
			if err := o.waitForSlot(ctx, f); err != nil {
				return o.interrupted(ctx, f, m, len(shoots)-i)
			}
		}
		if err := limiter.Wait(ctx); err != nil {
			return o.interrupted(ctx, f, m, len(shoots)-i)
		}
		if _, err := mover.Move(ctx, shoot, o.SeedName, target, nil, seedcmd.FieldManager, o.DryRun == seedcmd.DryRunServer); err != nil {
			if ctx.Err() != nil {
				return o.interrupted(ctx, f, m, len(shoots)-i)
			}
			if r := mover.Refusal(err, o.SeedName, target); r != nil {
				m.refused++
				if o.DryRun == seedcmd.DryRunServer {
					o.printf("shoot/%s would move to seed/%s, but Gardener would refuse: %s\n", key, target, r)
				} else {
					o.printf("shoot/%s not moved to seed/%s: %s\n", key, target, r)
				}
			} else {
				m.failed++
				o.printf("shoot/%s not moved to seed/%s: %s\n", key, target, migrationError(err))
			}
			continue
		}
		m.moved++
		countOn(l, shoot, target)
		if o.DryRun == seedcmd.DryRunServer {
			o.printf("shoot/%s would move to seed/%s\n", key, target)
			continue
		}
		o.printf("shoot/%s moved to seed/%s\n", key, target)
		o.printf("%d/%d shoots moved\n", m.moved, m.total-m.deleting)
		if f != nil {
			f.moving[key] = target
		}
	}
	if f != nil && o.Wait {
		if err := o.waitMigrated(ctx, f, &m); err != nil {
			return o.interrupted(ctx, f, m, 0)
		}
	}
	return o.migrationResult(m, f)
}

// migrationRefusals words the seeds a decision left out because Gardener
// would refuse the migration, which an operator can fix on those seeds.
func migrationRefusals(err error) string {
	var se *algorithm.ScheduleError
	if !errors.As(err, &se) {
		return ""
	}
	var b strings.Builder
	for _, r := range se.Rejections {
		if r.Filter == algorithm.FilterMigration {
			b.WriteString("; " + r.Message)
		}
	}
	return b.String()
}

// countOn makes a shoot count on its new seed for the next decisions.
func countOn(l *livelandscape.Landscape, shoot *corev1alpha1.Shoot, seed string) {
	moved := shoot.DeepCopy()
	moved.Spec.SeedName = &seed
	moved.Status.SeedName = &seed
	l.Snapshot.UpdateShoot(shoot, moved)
}

// migrationError words a failed binding that is no refusal.
func migrationError(err error) string {
	if apierrors.IsConflict(err) {
		return "the shoot changed since graftctl read it (" + err.Error() + "); run the drain again to decide on its current version"
	}
	return err.Error()
}

// migrationResult prints the summary and returns the error that makes
// graftctl exit non-zero when a shoot that should have left did not.
func (o *Options) migrationResult(m migration, f *flights) error {
	if o.DryRun != seedcmd.DryRunNone {
		failed := ""
		if m.failed > 0 {
			failed = fmt.Sprintf(", %d failed", m.failed)
		}
		o.printf("%d shoot(s) on seed/%s: %d would move, %d cannot move, %d would be refused by Gardener%s%s\n",
			m.total, o.SeedName, m.moved, m.cannotMove, m.refused, failed, o.DryRun.Suffix())
		return nil
	}
	switch {
	case m.left() == 0 && f != nil && o.Wait:
		o.printf("seed/%s drained: %d control plane(s) migrated\n", o.SeedName, f.migrated)
		return nil
	case m.left() == 0:
		o.printf("seed/%s drained: gardenlet now migrates %d control plane(s); Gardener keeps each shoot's spec frozen until its status.seedName names the new seed\n", o.SeedName, m.moved)
		return nil
	}
	var why []string
	if m.cannotMove > 0 {
		why = append(why, fmt.Sprintf("%d fit no other seed", m.cannotMove))
	}
	if m.refused > 0 {
		why = append(why, fmt.Sprintf("%d refused by Gardener", m.refused))
	}
	if m.failed > 0 {
		why = append(why, fmt.Sprintf("%d failed", m.failed))
	}
	return fmt.Errorf("seed %s not drained: %d/%d shoots moved, %d left (%s; see the lines above for each shoot); the seed stays cordoned, run 'graftctl drain %s --migrate' again once the causes are fixed",
		o.SeedName, m.moved, m.total-m.deleting, m.left(), strings.Join(why, ", "), o.SeedName)
}

// interrupted reports a drain stopped by --timeout (ExitTimedOut) or a
// signal, while binding or while waiting for gardenlet.
func (o *Options) interrupted(ctx context.Context, f *flights, m migration, notTried int) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return o.timedOut(f, m, notTried)
	}
	return fmt.Errorf("interrupted migrating shoots off seed %s: %d/%d shoots moved, %d not tried yet; the seed stays cordoned, run 'graftctl drain %s --migrate' again to go on",
		o.SeedName, m.moved, m.total-m.deleting, notTried, o.SeedName)
}
