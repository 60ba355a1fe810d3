package drain

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/ptr"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"

	"github.com/graft-dev/graft/pkg/algorithm"
	"github.com/graft-dev/graft/pkg/descheduler"
	"github.com/graft-dev/graft/pkg/graftctl/drainplan"
	"github.com/graft-dev/graft/pkg/graftctl/seedcmd"
)

// migration counts what a drain by migration did with the seed's shoots.
type migration struct {
	total, moved, cannotMove, refused, deleting int
}

// left is the number of shoots that should have left the seed and did not.
func (m migration) left() int { return m.cannotMove + m.refused }

// migrate drains a seed of a Gardener garden from here: it marks the seed
// drained as a plain drain does, then runs graft-descheduler's own engine
// over the seed (descheduler.Drain) with the configuration its leader
// publishes on its Lease (or its defaults), so that the moves keep the
// daemon's budgets, pace, slots and windows. A shoot that fits nowhere else
// stays and is reported, as one Gardener refuses. With --dry-run nothing is
// written: it prints the drain's plan, computed by the same engine over a
// copy; --dry-run=server also sends each planned binding with dryRun=All,
// so that Gardener's admission answers it.
func (o *Options) migrate(ctx context.Context) error {
	seed, err := o.markDrained(ctx)
	if err != nil {
		return err
	}
	if o.DryRun != seedcmd.DryRunNone {
		return o.planMigration(ctx, seed)
	}
	cfg, live, err := o.deschedulerConfig(ctx)
	if err != nil {
		return err
	}
	shoots, err := o.shootsOnSeed(ctx)
	if err != nil {
		return err
	}
	m := migration{total: len(shoots)}
	for _, s := range shoots {
		if s.DeletionTimestamp != nil {
			m.deleting++
		}
	}
	o.printf("%d shoot(s) to migrate off seed/%s\n", len(shoots), o.SeedName)

	var f *flights
	if o.Wait {
		var stop func()
		if f, stop, err = o.watchFlights(ctx); err != nil {
			return err
		}
		defer stop()
	}
	events := record.NewBroadcaster()
	events.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: o.Kube.CoreV1().Events("")})
	defer events.Shutdown()
	out := &drainOutput{o: o, f: f, of: m.total - m.deleting}
	res, err := descheduler.Drain(ctx, cfg, o.Garden, o.Kube, descheduler.DrainOptions{
		Options:  descheduler.Options{Clock: o.Clock},
		Seed:     o.SeedName,
		Recorder: events.NewRecorder(scheme.Scheme, corev1.EventSource{Component: seedcmd.FieldManager}),
		Live:     live, Observer: out, Scheduling: ptr.To(o.schedulingConfig(ctx)), FieldManager: seedcmd.FieldManager,
	})
	if res != nil {
		m.moved = len(res.Moved)
		for _, why := range res.Left {
			if why[0] == descheduler.ResultRefused {
				m.refused++
			} else {
				m.cannotMove++
			}
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			return o.interrupted(ctx, f, m)
		}
		return err
	}
	if f != nil {
		if err := o.waitMigrated(ctx, f, &m); err != nil {
			return o.interrupted(ctx, f, m)
		}
	}
	return o.migrationResult(m, f)
}

// deschedulerConfig is the configuration the drain runs graft-descheduler's
// engine with: the one its leader publishes (drainplan.LiveFlag.Descheduler,
// which warns when it uses the defaults), the region ConfigMaps of
// --region-config-namespace, and the pace flags where given.
func (o *Options) deschedulerConfig(ctx context.Context) (*configv1alpha1.DeschedulerConfiguration, *algorithm.LiveFlow, error) {
	d, err := o.Live.Descheduler(ctx, o.Kube.CoordinationV1(), o.LeaseNamespace, o.LeaseName, o.Garden.API())
	if err != nil {
		return nil, nil, err
	}
	for _, note := range d.Notes {
		fmt.Fprintf(o.ErrOut, "Warning: %s\n", note)
	}
	cfg := d.Config
	cfg.RegionConfigNamespace = o.regionConfigNamespace()
	if o.paceSet["migration-rate"] {
		cfg.EvictionRate = ptr.To(o.MigrationRate)
	}
	if o.paceSet["migration-burst"] {
		cfg.EvictionBurst = ptr.To(int32(o.MigrationBurst))
	}
	if o.paceSet["max-in-flight"] {
		cfg.MaxMigrationsInFlight = ptr.To(int32(o.MaxInFlight))
	}
	if errs := cfg.Validate(); len(errs) > 0 {
		return nil, nil, fmt.Errorf("graft-descheduler's configuration with the drain's flags: %w", errs.ToAggregate())
	}
	return cfg, d.Live, nil
}

// planMigration is the dry run of a drain by migration: the plan, and with
// --dry-run=server Gardener's answer to each planned binding.
func (o *Options) planMigration(ctx context.Context, drained *corev1alpha1.Seed) error {
	entries, err := o.printedPlan(ctx, drained)
	if err != nil || o.DryRun != seedcmd.DryRunServer {
		return err
	}
	mover := o.Garden.Mover()
	refused := 0
	for _, e := range entries {
		if e.How == drainplan.Stay || e.Held || e.Destination == "" {
			continue
		}
		key := algorithm.ShootKey(e.Shoot)
		if _, err := mover.Move(ctx, e.Shoot, o.SeedName, e.Destination, nil, seedcmd.FieldManager, true); err != nil {
			refused++
			why := migrationError(err)
			if r := mover.Refusal(err, o.SeedName, e.Destination); r != nil {
				why = r.String()
			}
			o.printf("shoot/%s would move to seed/%s, but Gardener would refuse: %s\n", key, e.Destination, why)
			continue
		}
		o.printf("shoot/%s would move to seed/%s: Gardener accepts the binding\n", key, e.Destination)
	}
	o.printf("%d planned binding(s) Gardener would refuse%s\n", refused, o.DryRun.Suffix())
	return nil
}

// migrationError words a failed binding that is no refusal.
func migrationError(err error) string {
	if apierrors.IsConflict(err) {
		return "the shoot changed since graftctl read it (" + err.Error() + "); run the drain again to decide on its current version"
	}
	return err.Error()
}

// drainOutput prints a drain's moves and holds as they happen, and hands
// the moves to the flights followed until they land.
type drainOutput struct {
	o  *Options
	f  *flights
	of int

	mu    sync.Mutex
	moved int
}

func (d *drainOutput) Moved(shoot *corev1alpha1.Shoot, target string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.moved++
	key := algorithm.ShootKey(shoot)
	d.o.printf("shoot/%s moved to seed/%s\n", key, target)
	d.o.printf("%d/%d shoots moved\n", d.moved, d.of)
	if d.f != nil {
		d.f.add(key, target)
	}
}

func (d *drainOutput) Held(shoot *corev1alpha1.Shoot, result, why string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.o.printf("shoot/%s held (%s): %s\n", algorithm.ShootKey(shoot), result, why)
}

// migrationResult prints the summary and returns the error that makes
// graftctl exit non-zero when a shoot that should have left did not.
func (o *Options) migrationResult(m migration, f *flights) error {
	switch {
	case m.left() == 0 && f != nil:
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
	return fmt.Errorf("seed %s not drained: %d/%d shoots moved, %d left (%s; see the lines above for each shoot); the seed stays drained, run 'graftctl drain %s --migrate' again once the causes are fixed",
		o.SeedName, m.moved, m.total-m.deleting, m.left(), strings.Join(why, ", "), o.SeedName)
}

// interrupted reports a drain stopped by --timeout (ExitTimedOut) or a
// signal, while moving or while waiting for gardenlet.
func (o *Options) interrupted(ctx context.Context, f *flights, m migration) error {
	notMoved := max(m.total-m.deleting-m.moved-m.left(), 0)
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return o.timedOut(f, m, notMoved)
	}
	return fmt.Errorf("interrupted migrating shoots off seed %s: %d/%d shoots moved, %d not moved yet; the seed stays drained, run 'graftctl drain %s --migrate' again to go on",
		o.SeedName, m.moved, m.total-m.deleting, notMoved, o.SeedName)
}
