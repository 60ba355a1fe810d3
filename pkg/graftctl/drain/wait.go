package drain

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"

	graftlisters "github.com/graft-dev/client-go/listers/core/v1alpha1"
	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"

	"github.com/graft-dev/graft/pkg/algorithm"
	"github.com/graft-dev/graft/pkg/component/cachetrim"
	"github.com/graft-dev/graft/pkg/descheduler"
	"github.com/graft-dev/graft/pkg/garden"
	"github.com/graft-dev/graft/pkg/graftctl/drainplan"
	"github.com/graft-dev/graft/pkg/graftctl/livelandscape"
)

// state is where a shoot that has to leave the seed stands.
type state int

const (
	onSeed    state = iota // still on the drained seed
	pending                // evicted, waiting for the scheduler
	migrating              // on Gardener, bound elsewhere while its control plane moves
	moved                  // running on another seed
	deleted                // gone
)

type entry struct {
	shoot *corev1alpha1.Shoot
	state state
	seed  string
}

// progress follows the shoots that have to leave the seed.
type progress struct {
	seedName string
	drained  *corev1alpha1.Seed
	since    time.Time
	entries  map[string]*entry
	stayers  map[string]bool
	moved    int
	// moves are the API's: a shoot whose move is in flight has moved once
	// its control plane runs on the new seed (on Gardener status.seedName),
	// not at its binding.
	moves garden.Moves
}

func newProgress(seed *corev1alpha1.Seed, since time.Time) *progress {
	return &progress{seedName: seed.Name, drained: seed, since: since, entries: map[string]*entry{}, stayers: map[string]bool{}, moves: garden.Graft.Moves()}
}

// observe records a shoot seen on the seed and returns the line to print for
// a shoot that stays, if it is new.
func (p *progress) observe(shoot *corev1alpha1.Shoot) string {
	key := algorithm.ShootKey(shoot)
	if _, ok := p.entries[key]; ok || p.stayers[key] {
		return ""
	}
	if fateOf(shoot, p.drained, p.since).stays {
		p.stayers[key] = true
		return fmt.Sprintf("shoot/%s tolerates %s and stays\n", key, "seed.gardener.cloud/unschedulable:NoExecute")
	}
	p.entries[key] = &entry{shoot: shoot, state: onSeed, seed: p.seedName}
	return ""
}

// update moves an entry to its new state and returns the line to print.
func (p *progress) update(key string, shoot *corev1alpha1.Shoot) string {
	e := p.entries[key]
	if shoot == nil {
		if e.state == deleted {
			return ""
		}
		if e.state == moved {
			p.moved--
		}
		e.state = deleted
		return fmt.Sprintf("shoot/%s deleted\n", key)
	}
	e.shoot = shoot
	switch {
	case shoot.Spec.SeedName == nil || *shoot.Spec.SeedName == "":
		if e.state == pending {
			return ""
		}
		if e.state == moved {
			p.moved--
		}
		e.state, e.seed = pending, ""
		return fmt.Sprintf("shoot/%s evicted, waiting for a seed\n", key)
	case *shoot.Spec.SeedName == p.seedName:
		if e.state == moved {
			p.moved--
		}
		e.state, e.seed = onSeed, p.seedName
		return ""
	case p.inFlight(shoot):
		if e.state == migrating && e.seed == *shoot.Spec.SeedName {
			return ""
		}
		if e.state == moved {
			p.moved--
		}
		e.state, e.seed = migrating, *shoot.Spec.SeedName
		return fmt.Sprintf("shoot/%s migrating to seed/%s\n", key, e.seed)
	default:
		if e.state == moved && e.seed == *shoot.Spec.SeedName {
			return ""
		}
		if e.state != moved {
			p.moved++
		}
		e.state, e.seed = moved, *shoot.Spec.SeedName
		return fmt.Sprintf("shoot/%s moved to seed/%s\n", key, e.seed)
	}
}

func (p *progress) total() int {
	n := 0
	for _, e := range p.entries {
		if e.state != deleted {
			n++
		}
	}
	return n
}

// left returns the entries still on the seed or waiting for a seed, by key.
func (p *progress) left() []string {
	var keys []string
	for key, e := range p.entries {
		if e.state == onSeed || e.state == pending || e.state == migrating {
			keys = append(keys, key)
		}
	}
	sort.Strings(keys)
	return keys
}

// wait follows the shoots until every one that has to leave runs elsewhere.
func (o *Options) wait(ctx context.Context, seed *corev1alpha1.Seed, before []*corev1alpha1.Shoot) error {
	p := newProgress(seed, o.Clock.Now())
	p.moves = o.Garden.Mover()
	for _, shoot := range before {
		o.printf("%s", p.observe(shoot))
	}
	o.printf("%d shoot(s) to move off seed/%s\n", p.total(), o.SeedName)

	// Draining a large seed follows every shoot of the garden: keep only
	// what graft reads of them.
	informers, err := o.Garden.Informers(cachetrim.Transform)
	if err != nil {
		return err
	}
	informer := informers.Shoots().Informer
	shoots := graftlisters.NewShootLister(informer.GetIndexer())
	dirty := make(chan struct{}, 1)
	notify := func(any) {
		select {
		case dirty <- struct{}{}:
		default:
		}
	}
	if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    notify,
		UpdateFunc: func(_, obj any) { notify(obj) },
		DeleteFunc: notify,
	}); err != nil {
		return err
	}
	informerCtx, stopInformer := context.WithCancel(ctx)
	defer func() {
		stopInformer()
		informers.Shutdown()
	}()
	informers.Start(informerCtx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		return o.giveUp(ctx, p)
	}

	ticker := o.Clock.NewTicker(o.LeaseCheckInterval)
	defer ticker.Stop()
	checkLease := true
	leaseChecked := false
	lastReported := -1
	for {
		all, err := shoots.List(labels.Everything())
		if err != nil {
			return err
		}
		for _, shoot := range all {
			if shoot.Spec.SeedName != nil && *shoot.Spec.SeedName == o.SeedName {
				o.printf("%s", p.observe(shoot))
			}
		}
		keys := make([]string, 0, len(p.entries))
		for key := range p.entries {
			keys = append(keys, key)
		}
		sort.Strings(keys)
		for _, key := range keys {
			ns, name, _ := cache.SplitMetaNamespaceKey(key)
			shoot, err := shoots.Shoots(ns).Get(name)
			if apierrors.IsNotFound(err) {
				shoot = nil
			} else if err != nil {
				return err
			}
			o.printf("%s", p.update(key, shoot))
		}
		if p.moved != lastReported && p.total() > 0 {
			o.printf("%d/%d shoots moved\n", p.moved, p.total())
			lastReported = p.moved
		}
		if len(p.left()) == 0 {
			o.printf("seed/%s drained\n", o.SeedName)
			return nil
		}
		if checkLease && !leaseChecked {
			leaseChecked = true
			if checkLease, err = o.checkDescheduler(ctx); err != nil {
				return fmt.Errorf("%w; %d/%d shoots moved", err, p.moved, p.total())
			}
		}

		select {
		case <-ctx.Done():
			return o.giveUp(ctx, p)
		case <-dirty:
		case <-ticker.C():
			if checkLease {
				if checkLease, err = o.checkDescheduler(ctx); err != nil {
					return fmt.Errorf("%w; %d/%d shoots moved", err, p.moved, p.total())
				}
			}
		}
	}
}

// checkDescheduler fails when graft-descheduler's leader-election Lease is
// missing or stale: then nothing evicts the shoots and waiting is pointless.
// It returns false when the Lease cannot be read for lack of permission, after
// saying so, so that the caller stops checking.
func (o *Options) checkDescheduler(ctx context.Context) (bool, error) {
	lease, err := o.Kube.CoordinationV1().Leases(o.LeaseNamespace).Get(ctx, o.LeaseName, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return false, fmt.Errorf("graft-descheduler is not running: its leader-election Lease %s/%s does not exist, so nothing evicts the shoots from seed %s "+
			"(the seed stays tainted; start graft-descheduler and run 'graftctl drain %s' again, or run 'graftctl uncordon %s')",
			o.LeaseNamespace, o.LeaseName, o.SeedName, o.SeedName, o.SeedName)
	case apierrors.IsForbidden(err):
		fmt.Fprintf(o.ErrOut, "Warning: cannot check whether graft-descheduler runs: %s\n", err.Error())
		return false, nil
	case err != nil:
		if ctx.Err() != nil {
			return true, nil
		}
		return false, err
	}
	now := o.Clock.Now()
	if stale, why := leaseStale(lease.Spec.RenewTime, lease.Spec.LeaseDurationSeconds, now); stale {
		holder := "nobody"
		if lease.Spec.HolderIdentity != nil && *lease.Spec.HolderIdentity != "" {
			holder = *lease.Spec.HolderIdentity
		}
		return false, fmt.Errorf("graft-descheduler is not running: its leader-election Lease %s/%s, held by %s, %s, so nothing evicts the shoots from seed %s "+
			"(the seed stays tainted; start graft-descheduler, or run 'graftctl uncordon %s')",
			o.LeaseNamespace, o.LeaseName, holder, why, o.SeedName, o.SeedName)
	}
	return true, nil
}

// leaseStale reports whether a Lease has expired: renewTime plus
// leaseDurationSeconds lies in the past.
func leaseStale(renew *metav1.MicroTime, durationSeconds *int32, now time.Time) (bool, string) {
	if renew == nil {
		return true, "was never renewed"
	}
	if durationSeconds == nil {
		return true, "has no lease duration"
	}
	expiry := renew.Add(time.Duration(*durationSeconds) * time.Second)
	if expiry.Before(now) {
		return true, fmt.Sprintf("expired %s ago (last renewed at %s, lease duration %ds)",
			now.Sub(expiry).Round(time.Second), renew.UTC().Format(time.RFC3339), *durationSeconds)
	}
	return false, ""
}

// giveUp reports the shoots left when the wait ends early and returns the error
// that makes graftctl exit non-zero.
func (o *Options) giveUp(ctx context.Context, p *progress) error {
	left := p.left()
	reasons := o.reasons(context.WithoutCancel(ctx), p, left)
	for i, key := range left {
		o.printf("shoot/%s left: %s\n", key, reasons[i])
	}
	what := "interrupted"
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		what = fmt.Sprintf("timed out after %s", o.Timeout)
	}
	return fmt.Errorf("%s waiting for seed %s to drain: %d/%d shoots moved, %d left", what, o.SeedName, p.moved, p.total(), len(left))
}

// reasons says, for each shoot left, why it has not moved: the scheduler or
// gardenlet it waits for, or, on the seed, what graft-descheduler's planner
// says it does with it (drainplan.Plan, as drain --plan prints it).
func (o *Options) reasons(ctx context.Context, p *progress, keys []string) []string {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out := make([]string, len(keys))
	l, err := livelandscape.Load(ctx, o.Garden, o.Kube, o.schedulingConfig(ctx), o.regionConfigNamespace())
	now := o.Clock.Now()
	for i, key := range keys {
		e := p.entries[key]
		if err != nil {
			out[i] = "unknown, the landscape could not be read: " + err.Error()
			continue
		}
		if e.state == migrating {
			out[i] = fmt.Sprintf("its control plane is migrating to seed/%s", e.seed)
			continue
		}
		in, inErr := l.Inputs(e.shoot)
		if e.state == pending {
			if inErr != nil {
				out[i] = "waiting for a seed: " + inErr.Error()
			} else if target, err := algorithm.Schedule(e.shoot, l.Snapshot, in); err != nil {
				out[i] = "waiting for a seed: " + algorithm.ShortReason(err)
			} else {
				out[i] = fmt.Sprintf("waiting for the scheduler (seed/%s fits)", target)
			}
			continue
		}
		out[i] = o.planned(ctx, l, p.seedName, now)[key]
	}
	return out
}

// planned says, for each shoot on the seed by key, what graft-descheduler
// does with it by the drain plan, computed once.
func (o *Options) planned(ctx context.Context, l *livelandscape.Landscape, seedName string, now time.Time) map[string]string {
	if o.plannedWhy != nil {
		return o.plannedWhy
	}
	o.plannedWhy = map[string]string{}
	seed, ok := l.Snapshot.Seed(seedName)
	if !ok {
		return o.plannedWhy
	}
	d, err := o.Live.Descheduler(ctx, o.Kube.CoordinationV1(), o.LeaseNamespace, o.LeaseName, garden.APIOf(l))
	var entries []drainplan.Entry
	if err == nil {
		entries, err = drainplan.Plan(l, seed, d, now)
	}
	if err != nil {
		for _, s := range l.ShootsOn(seedName) {
			o.plannedWhy[algorithm.ShootKey(s)] = "unknown, the drain could not be planned: " + err.Error()
		}
		return o.plannedWhy
	}
	for _, note := range d.Notes {
		fmt.Fprintf(o.ErrOut, "Warning: %s\n", note)
	}
	for _, e := range entries {
		var why string
		switch {
		case e.How == drainplan.Stay:
			why = "stays: " + e.Why
		case e.Held:
			why = "cannot move: " + e.Why
		case e.Now:
			why = fmt.Sprintf("graft-descheduler moves it now, to seed/%s: %s", seedOrNone(e.Destination), e.Why)
		default:
			why = fmt.Sprintf("graft-descheduler moves it at %s, to seed/%s: %s", e.At.UTC().Format(time.RFC3339), seedOrNone(e.Destination), e.Why)
		}
		o.plannedWhy[algorithm.ShootKey(e.Shoot)] = why
	}
	return o.plannedWhy
}

// seedOrNone names a destination, <none> for none.
func seedOrNone(seed string) string {
	if seed == "" {
		return "<none>"
	}
	return seed
}

// inFlight tells whether the shoot's move is in flight as the API shows it.
func (p *progress) inFlight(shoot *corev1alpha1.Shoot) bool {
	_, ok := p.moves.InFlight(shoot)
	return ok
}

// deschedulerDrains says, as the line to print, that graft-descheduler
// drains the seed: its Lease is held and current and carries a
// configuration for the garden's API (descheduler.ConfigurationAnnotation).
// "" when it does not run there (or graftctl may not tell).
func (o *Options) deschedulerDrains(ctx context.Context) string {
	lease, err := o.Kube.CoordinationV1().Leases(o.LeaseNamespace).Get(ctx, o.LeaseName, metav1.GetOptions{})
	if err != nil || lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity == "" {
		return ""
	}
	if stale, _ := leaseStale(lease.Spec.RenewTime, lease.Spec.LeaseDurationSeconds, o.Clock.Now()); stale {
		return ""
	}
	value, ok := lease.Annotations[descheduler.ConfigurationAnnotation]
	if !ok {
		return ""
	}
	cfg, err := descheduler.DecodeConfiguration(value)
	if err != nil || garden.API(cfg.API) != o.Garden.API() {
		return ""
	}
	return fmt.Sprintf("graft-descheduler (%s, Lease %s/%s) makes the drain's moves, under its budgets and pace; --migrate makes them from here instead",
		*lease.Spec.HolderIdentity, o.LeaseNamespace, o.LeaseName)
}
