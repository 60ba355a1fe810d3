package drain

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"k8s.io/client-go/tools/cache"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"

	"github.com/graft-dev/graft/pkg/component/cachetrim"
	"github.com/graft-dev/graft/pkg/graftctl/factory"
)

// ExitTimedOut is graftctl's exit code for a drain --migrate that --timeout
// ended while control planes were still moving or waiting for their turn;
// shoots that fit no other seed or that Gardener refused give 1.
const ExitTimedOut = 2

// flights follows control-plane migrations on Gardener: a binding only
// starts one; gardenlet carries it out, and status.seedName names the new
// seed when it is done. Until then the shoot is in flight and counts on both
// seeds.
type flights struct {
	// from is the drained seed.
	from     string
	informer cache.SharedIndexInformer
	dirty    chan struct{}
	// moving are the shoots this drain bound, by key, to their new seed,
	// until they are seen there (or gone).
	moving   map[string]string
	migrated int
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// watchFlights starts an informer of the garden's shoots (their placement
// only) and returns once it has synced; stop ends it.
func (o *Options) watchFlights(ctx context.Context) (_ *flights, stop func(), _ error) {
	informers, err := o.Garden.Informers(cachetrim.Placement)
	if err != nil {
		return nil, nil, err
	}
	f := &flights{from: o.SeedName, informer: informers.Shoots().Informer, dirty: make(chan struct{}, 1), moving: map[string]string{}}
	notify := func(any) {
		select {
		case f.dirty <- struct{}{}:
		default:
		}
	}
	if _, err := f.informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: notify, UpdateFunc: func(_, obj any) { notify(obj) }, DeleteFunc: notify,
	}); err != nil {
		return nil, nil, err
	}
	informerCtx, cancel := context.WithCancel(ctx)
	stop = func() {
		cancel()
		informers.Shutdown()
	}
	informers.Start(informerCtx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), f.informer.HasSynced) {
		stop()
		return nil, nil, fmt.Errorf("reading the garden's shoots: %w", context.Cause(ctx))
	}
	return f, stop, nil
}

// add follows a move this drain wrote until it lands.
func (f *flights) add(key, target string) { f.moving[key] = target }

// settle drops the shoots of this drain whose migration ended and returns a
// line for each: migrated, deleted, or bound elsewhere by someone else.
func (f *flights) settle() []string {
	var lines []string
	for _, key := range slices.Sorted(maps.Keys(f.moving)) {
		target := f.moving[key]
		obj, exists, err := f.informer.GetStore().GetByKey(key)
		if err != nil {
			continue
		}
		if !exists {
			delete(f.moving, key)
			lines = append(lines, fmt.Sprintf("shoot/%s deleted while its control plane moved to seed/%s\n", key, target))
			continue
		}
		s := obj.(*corev1alpha1.Shoot)
		switch spec := deref(s.Spec.SeedName); {
		case spec == f.from:
			// The informer has not shown the binding yet: Gardener freezes a
			// migrating shoot's spec, so nobody has moved it back.
		case spec != target:
			delete(f.moving, key)
			lines = append(lines, fmt.Sprintf("shoot/%s was bound to seed/%s by someone else\n", key, spec))
		case deref(s.Status.SeedName) == target:
			delete(f.moving, key)
			f.migrated++
			lines = append(lines, fmt.Sprintf("shoot/%s migrated to seed/%s\n", key, target))
		}
	}
	return lines
}

// next waits for a change of the garden's shoots, printing what settled.
func (o *Options) next(ctx context.Context, f *flights) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-f.dirty:
	}
	for _, line := range f.settle() {
		o.printf("%s", line)
	}
	return nil
}

// waitMigrated follows this drain's migrations until gardenlet has finished
// each of them.
func (o *Options) waitMigrated(ctx context.Context, f *flights, m *migration) error {
	for _, line := range f.settle() {
		o.printf("%s", line)
	}
	reported := -1
	for len(f.moving) > 0 {
		if f.migrated != reported {
			o.printf("%d/%d control plane(s) migrated, %d moving\n", f.migrated, m.moved, len(f.moving))
			reported = f.migrated
		}
		if err := o.next(ctx, f); err != nil {
			return err
		}
	}
	return nil
}

// timedOut is the error of a drain that --timeout ended: what finished, what
// is still moving, what never started, and what was left behind.
func (o *Options) timedOut(f *flights, m migration, notTried int) error {
	var moving []string
	if f != nil {
		for key, target := range f.moving {
			moving = append(moving, fmt.Sprintf("%s to seed/%s", key, target))
		}
	}
	sort.Strings(moving)
	for _, s := range moving {
		o.printf("shoot/%s still moving\n", s)
	}
	migrated := 0
	if f != nil {
		migrated = f.migrated
	}
	return &factory.ExitError{Code: ExitTimedOut, Err: fmt.Errorf(
		"timed out after %s draining seed %s: %d control plane(s) migrated, %d still moving (%s), %d not bound yet, %d left behind (they fit no other seed or Gardener refused them); the seed stays drained, run 'graftctl drain %s --migrate' again to go on",
		o.Timeout, o.SeedName, migrated, len(moving), orNone(strings.Join(moving, ", ")), notTried, m.left(), o.SeedName)}
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
