package main

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"
	"github.com/graft-dev/graft/pkg/algorithm"
	"github.com/graft-dev/graft/pkg/controlplane"
	"github.com/graft-dev/graft/pkg/descheduler/plugins/noexecutetaints"
	"github.com/graft-dev/graft/pkg/maintenance"
	"github.com/graft-dev/graft/test/invariant"
)

// Rules the run judges besides the invariant Monitor's (capacity and filters
// at every binding, bound once).
const (
	ruleLost      invariant.Rule = "LostShoot"
	ruleNoReason  invariant.Rule = "MoveWithoutReason"
	ruleMustLeave invariant.Rule = "StayedOnNoExecute"
	rulePending   invariant.Rule = "PendingTooLong"
	ruleCrash     invariant.Rule = "Crash"
	ruleLoop      invariant.Rule = "EvictedTooOften"
	// ruleWindow: a deferrable move (over capacity, a drain in maintenance
	// windows) made outside the shoot's window and before its deadline, and
	// not a live migration between gardenlets known to run the live flow.
	// A move written as live is judged like any other unless the run
	// declares its gardenlet version (chaosLiveGardenletVersions): Gardener
	// v1.150.0's gardenlet runs it as a classic migration.
	ruleWindow invariant.Rule = "DeferrableMoveOutsideWindow"
	// On a Gardener garden (see migrationRules).
	ruleInFlight invariant.Rule = "MigrationsInFlightExceeded"
	ruleTwice    invariant.Rule = "MigratedTwiceForOneCause"
	// ruleCoolDown: an improving plugin (Rebalance, ComeHome) moved a shoot
	// the descheduler had moved before, within the cool-down (longer than
	// any run).
	ruleCoolDown invariant.Rule = "ImprovedInCoolDown"
)

// improvingPlugins are the plugins whose moves the cool-down bounds.
var improvingPlugins = []string{"Rebalance", "ComeHome"}

// migrationRules are what the checker judges on a Gardener garden, where an
// eviction is a control-plane migration: never more migrations in flight
// than graft-descheduler's limits, in all and to one seed, and no shoot
// migrated off a seed twice for one cause within window (its
// repeatEvictionWindow).
type migrationRules struct {
	total, perSeed int
	window         time.Duration
}

// Every move must make progress: a shoot evicted more than loopEvictions
// times within loopWindow is moving back and forth.
const (
	loopEvictions = 3
	loopWindow    = time.Minute
)

// checker follows shoots, seeds, cloud profiles and region ConfigMaps by
// watches, feeds the invariant Monitor and judges the run's own rules.
type checker struct {
	monitor *invariant.Monitor
	feed    *invariant.Feed
	logf    func(format string, args ...any)
	// bound is how long a shoot may stay pending although a seed fits it, or
	// on a seed it must leave although another fits it.
	bound time.Duration

	mu         sync.Mutex
	objects    map[invariant.Kind]map[string]runtime.Object
	seedOf     map[string]string    // shoot key -> seed last seen
	boundAt    map[string]time.Time // shoot key -> when it was seen arriving on its seed
	created    map[string]time.Time // by the run
	deleted    map[string]bool      // by the run
	gone       map[string]bool      // seen deleted
	pendingFit map[string]time.Time // shoot key -> since when a seed fits it while pending
	mustLeave  map[string]time.Time // shoot key -> since when it must leave its seed and another fits
	reported   map[string]bool
	violations []invariant.Violation
	bindings   int
	evictions  int
	// evictedAt are each shoot's evictions within the last loopWindow;
	// maxEvictionsPerMinute is the most seen of one shoot (mostEvicted).
	evictedAt             map[string][]time.Time
	evictionsOf           map[string]int
	maxEvictionsPerMinute int
	mostEvicted           string
	// maxPending and maxLeaving are the longest waits seen, for tuning the bound.
	maxPending, maxLeaving time.Duration

	// migrations is set on a Gardener garden; migratedFor is when each
	// shoot was last migrated off a seed for a cause (shoot|seed|cause),
	// maxInFlight and maxInFlightTo the most migrations seen in flight.
	migrations                 *migrationRules
	migratedFor                map[string]time.Time
	maxInFlight, maxInFlightTo int
	// deferredMoves counts the deferrable moves made in a window or at a
	// deadline, liveMoves the live migrations.
	deferredMoves, liveMoves int
	// movedAt is when each shoot was last evicted or migrated;
	// improvements counts the improving plugins' moves.
	movedAt      map[string]time.Time
	improvements int

	// pool judges the scaled pool's scale-outs (the Gardener mode).
	pool *poolJudge
}

// newChecker follows sources; migrations is set on a Gardener garden.
func newChecker(sources []invariant.Source, bound time.Duration, logf func(string, ...any), migrations *migrationRules) *checker {
	c := &checker{
		logf:       logf,
		bound:      bound,
		migrations: migrations,
		monitor: invariant.NewMonitor(invariant.MonitorOptions{Migrations: migrations != nil, Logf: func(format string, args ...any) {
			logf("monitor: "+format, args...)
		}}),
		migratedFor: map[string]time.Time{},
		objects:     map[invariant.Kind]map[string]runtime.Object{},
		seedOf:      map[string]string{},
		boundAt:     map[string]time.Time{},
		created:     map[string]time.Time{},
		deleted:     map[string]bool{},
		gone:        map[string]bool{},
		pendingFit:  map[string]time.Time{},
		mustLeave:   map[string]time.Time{},
		reported:    map[string]bool{},
		evictedAt:   map[string][]time.Time{},
		evictionsOf: map[string]int{},
		movedAt:     map[string]time.Time{},
	}
	// As the chart configures graft-scheduler (its binary's defaults).
	c.monitor.SetScheduler(corev1alpha1.DefaultSchedulerName, algorithm.Config{Strategy: algorithm.StrategySameRegion})
	c.feed = &invariant.Feed{
		Monitor: c.monitor,
		Sources: sources,
		OnList:  c.listed,
		OnEvent: c.event,
		Logf: func(format string, args ...any) {
			logf("checker: "+format, args...)
		},
	}
	return c
}

func (c *checker) violate(v invariant.Violation) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.violateLocked(v)
}

func (c *checker) violateLocked(v invariant.Violation) {
	if v.At.IsZero() {
		v.At = time.Now()
	}
	c.violations = append(c.violations, v)
	c.logf("VIOLATION %s", v)
}

// Violations returns the run's and the Monitor's violations, oldest first.
func (c *checker) Violations() []invariant.Violation {
	c.mu.Lock()
	out := append([]invariant.Violation(nil), c.violations...)
	c.mu.Unlock()
	out = append(out, c.monitor.Violations()...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].At.Before(out[j].At) })
	return out
}

func (c *checker) counts() (bindings, evictions int, maxPending, maxLeaving time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bindings, c.evictions, c.maxPending, c.maxLeaving
}

// Created records a shoot the run created; Deleted one it deleted.
func (c *checker) Created(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.created[key] = time.Now()
}

func (c *checker) Deleted(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.deleted[key] = true
}

// start lists and watches every source until ctx ends, and judges the
// state rules every two seconds.
func (c *checker) start(ctx context.Context) error {
	if err := c.feed.Start(ctx, ctx); err != nil {
		return err
	}
	go func() {
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		n := 0
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			c.feed.CatchUp(ctx)
			if n++; n%4 == 0 {
				c.samplePool(time.Now())
			}
			if n%8 == 0 {
				c.judgeState(time.Now())
			}
		}
	}()
	return nil
}

func key(o metav1.Object) string {
	if o.GetNamespace() == "" {
		return o.GetName()
	}
	return o.GetNamespace() + "/" + o.GetName()
}

// listed updates the cache from a list the Monitor has recorded: what the
// list lacks and the cache holds at an older resourceVersion was deleted in
// between.
func (c *checker) listed(kind invariant.Kind, items []runtime.Object, listRV string, afterGap bool) {
	fresh := map[string]runtime.Object{}
	for _, o := range items {
		a, _ := meta.Accessor(o)
		fresh[key(a)] = o
	}
	for _, o := range items {
		c.observe(kind, o, afterGap)
	}
	listRVn, _ := strconv.ParseUint(listRV, 10, 64)
	var gone []runtime.Object
	c.mu.Lock()
	for k, o := range c.objects[kind] {
		a, _ := meta.Accessor(o)
		if orv, _ := strconv.ParseUint(a.GetResourceVersion(), 10, 64); fresh[k] == nil && orv <= listRVn {
			delete(c.objects[kind], k)
			gone = append(gone, o)
		}
	}
	c.mu.Unlock()
	for _, o := range gone {
		if s, ok := o.(*corev1alpha1.Shoot); ok {
			c.shootDeleted(s)
		}
	}
}

// event updates the cache from a watch event the Monitor has recorded.
func (c *checker) event(kind invariant.Kind, ev watch.Event) {
	switch ev.Type {
	case watch.Added, watch.Modified:
		c.observe(kind, ev.Object, false)
	case watch.Deleted:
		acc, err := meta.Accessor(ev.Object)
		if err != nil {
			return
		}
		c.mu.Lock()
		delete(c.objects[kind], key(acc))
		c.mu.Unlock()
		if s, ok := ev.Object.(*corev1alpha1.Shoot); ok {
			c.shootDeleted(s)
		}
	}
}

func seedName(s *corev1alpha1.Shoot) string {
	if s.Spec.SeedName == nil {
		return ""
	}
	return *s.Spec.SeedName
}

// observe updates the cache and, for shoots, judges how the seed changed:
// it leaves a seed only through an eviction that names the seed and a reason.
func (c *checker) observe(kind invariant.Kind, obj runtime.Object, gap bool) {
	acc, err := meta.Accessor(obj)
	if err != nil {
		return
	}
	k := key(acc)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.objects[kind] == nil {
		c.objects[kind] = map[string]runtime.Object{}
	}
	// A list racing the watch may bring an older state than one seen already.
	rv, _ := strconv.ParseUint(acc.GetResourceVersion(), 10, 64)
	if have, ok := c.objects[kind][k]; ok {
		if h, _ := meta.Accessor(have); h != nil {
			if hrv, _ := strconv.ParseUint(h.GetResourceVersion(), 10, 64); hrv > rv {
				return
			}
		}
	}
	c.objects[kind][k] = obj
	shoot, ok := obj.(*corev1alpha1.Shoot)
	if !ok {
		return
	}
	if c.migrations != nil {
		defer c.countFlightsLocked()
	}
	prev, known := c.seedOf[k]
	cur := seedName(shoot)
	c.seedOf[k] = cur
	if !known || prev == cur {
		if known || cur != "" {
			if _, ok := c.boundAt[k]; !ok && cur != "" {
				c.boundAt[k] = time.Now()
			}
		}
		return
	}
	from, reason := shoot.Annotations[corev1alpha1.AnnotationDescheduledFrom], shoot.Annotations[corev1alpha1.AnnotationDescheduledReason]
	switch {
	case prev == "" && cur != "":
		c.bindings++
		c.boundAt[k] = time.Now()
	case prev != "" && cur == "":
		c.evictions++
		c.evictedLocked(k, prev, reason, time.Now())
		c.judgeTimingLocked(k, prev, reason, shoot)
		delete(c.boundAt, k)
		if from != prev || reason == "" {
			c.violateLocked(invariant.Violation{Rule: ruleNoReason, Shoot: k, Seed: prev,
				Message: fmt.Sprintf("left its seed without an eviction naming it (descheduled-from %q, descheduled-reason %q, resourceVersion %s)", from, reason, shoot.ResourceVersion)})
		}
	case c.migrations != nil: // a control-plane migration
		c.bindings++
		c.evictions++
		c.evictedLocked(k, prev, reason, time.Now())
		c.judgeTimingLocked(k, prev, reason, shoot)
		c.boundAt[k] = time.Now()
		if from != prev || reason == "" {
			c.violateLocked(invariant.Violation{Rule: ruleNoReason, Shoot: k, Seed: cur,
				Message: fmt.Sprintf("was migrated from seed %s to %s without an eviction naming it (descheduled-from %q, descheduled-reason %q, resourceVersion %s)", prev, cur, from, reason, shoot.ResourceVersion)})
		}
		c.migratedLocked(k, prev, shoot, time.Now())
		if shoot.Annotations[corev1alpha1.AnnotationLiveMigrate] == "true" {
			c.liveMoves++
		}
	default: // seed to seed
		c.bindings++
		c.evictions++
		c.evictedLocked(k, prev, reason, time.Now())
		c.judgeTimingLocked(k, prev, reason, shoot)
		c.boundAt[k] = time.Now()
		if !gap || from != prev || reason == "" {
			c.violateLocked(invariant.Violation{Rule: ruleNoReason, Shoot: k, Seed: cur,
				Message: fmt.Sprintf("moved from seed %s to %s without being seen unbound (watch gap %v, descheduled-from %q, descheduled-reason %q, resourceVersion %s)", prev, cur, gap, from, reason, shoot.ResourceVersion)})
		}
	}
}

// evictedLocked counts one eviction of shoot k from seed at now, logs it
// with its reason, and reports a shoot evicted more than loopEvictions times
// within loopWindow, once per window.
func (c *checker) evictedLocked(k, seed, reason string, now time.Time) {
	c.logf("checker: shoot %s evicted from seed %s: %s", k, seed, reason)
	if improvingCause(reason) {
		c.improvements++
		if at, ok := c.movedAt[k]; ok {
			c.violateLocked(invariant.Violation{Rule: ruleCoolDown, Shoot: k, Seed: seed,
				Message: fmt.Sprintf("was moved by an improving plugin (%s) %s after its last move, within the cool-down", reason, now.Sub(at).Round(time.Second))})
		}
	}
	c.movedAt[k] = now
	c.evictionsOf[k]++
	recent := c.evictedAt[k][:0]
	for _, at := range c.evictedAt[k] {
		if now.Sub(at) < loopWindow {
			recent = append(recent, at)
		}
	}
	recent = append(recent, now)
	c.evictedAt[k] = recent
	if len(recent) > c.maxEvictionsPerMinute {
		c.maxEvictionsPerMinute, c.mostEvicted = len(recent), k
	}
	if len(recent) > loopEvictions && !c.reported["loop/"+k+recent[0].String()] {
		c.reported["loop/"+k+recent[0].String()] = true
		c.violateLocked(invariant.Violation{Rule: ruleLoop, Shoot: k, Seed: seed,
			Message: fmt.Sprintf("was evicted %d times within %s (the last from seed %s): it moves back and forth", len(recent), loopWindow, seed)})
	}
}

// windowSlack is how far a deferrable move's record may lie outside the
// window: the descheduler checks the window right before it stamps the
// record.
const windowSlack = 2 * time.Second

// judgeTimingLocked reports a deferrable move made outside the shoot's
// maintenance window and before its deadline, unless it was live between
// gardenlets the run declares as running the live flow: the time
// is the move's own record (graft.dev/evictions), its class the reason's
// (descheduled-reason).
func (c *checker) judgeTimingLocked(k, seed, reason string, shoot *corev1alpha1.Shoot) {
	deferrable, deadline := deferrableCause(reason)
	if !deferrable || shoot.Annotations[corev1alpha1.AnnotationLiveMigrate] == "true" && liveEvidenced() {
		return
	}
	var at time.Time
	for _, e := range helper.Evictions(shoot) {
		if e.Seed == seed && e.At.After(at) {
			at = e.At
		}
	}
	if at.IsZero() {
		return
	}
	w, _ := maintenance.Of(shoot)
	if w.Contains(at) || w.Contains(at.Add(-windowSlack)) || !deadline.IsZero() && !at.Add(windowSlack).Before(deadline) {
		c.deferredMoves++
		return
	}
	c.violateLocked(invariant.Violation{Rule: ruleWindow, Shoot: k, Seed: seed,
		Message: fmt.Sprintf("was moved at %s for a cause that can wait (%s) outside its maintenance window (%s) and before its deadline (%v)", at.UTC().Format(time.RFC3339), reason, w, deadline)})
}

// liveEvidenced tells whether the run's gardenlets (all of
// controlplane.GardenerVersion) are declared to run the live flow.
func liveEvidenced() bool {
	return slices.Contains(chaosLiveGardenletVersions, controlplane.GardenerVersion)
}

// deferrableCause reads a move's class from its reason: over capacity, an
// improvement, or a drain in maintenance windows until a deadline.
func deferrableCause(reason string) (bool, time.Time) {
	if strings.HasPrefix(reason, "OverCapacity:") || improvingCause(reason) {
		return true, time.Time{}
	}
	const drained = "drained in maintenance windows until "
	i := strings.Index(reason, drained)
	if i < 0 {
		return false, time.Time{}
	}
	deadline, _ := time.Parse(time.RFC3339, strings.Fields(reason[i+len(drained):])[0])
	return true, deadline
}

// migratedLocked records a migration of shoot k off seed for the cause its
// eviction record gives, and reports a second one for the same cause within
// the window.
func (c *checker) migratedLocked(k, seed string, shoot *corev1alpha1.Shoot, now time.Time) {
	var last helper.Eviction
	for _, e := range helper.Evictions(shoot) {
		if e.Seed == seed && e.At.After(last.At) {
			last = e
		}
	}
	id := k + "|" + seed + "|" + last.Cause
	if at, ok := c.migratedFor[id]; ok && now.Sub(at) < c.migrations.window {
		c.violateLocked(invariant.Violation{Rule: ruleTwice, Shoot: k, Seed: seed,
			Message: fmt.Sprintf("was migrated off seed %s for %q again %s after the last time", seed, last.Cause, now.Sub(at).Round(time.Second))})
	}
	c.migratedFor[id] = now
}

// countFlightsLocked counts the migrations in flight in the state seen, in
// all and per destination, and reports more than the limits allow.
func (c *checker) countFlightsLocked() {
	total, to := 0, map[string]int{}
	for _, o := range c.objects[invariant.KindShoot] {
		if s := o.(*corev1alpha1.Shoot); algorithm.Migrating(s) {
			total++
			to[*s.Spec.SeedName]++
		}
	}
	c.maxInFlight = max(c.maxInFlight, total)
	if total > c.migrations.total && !c.reported["inflight/"+strconv.Itoa(total)] {
		c.reported["inflight/"+strconv.Itoa(total)] = true
		c.violateLocked(invariant.Violation{Rule: ruleInFlight, Message: fmt.Sprintf("%d migrations in flight, more than maxMigrationsInFlight %d", total, c.migrations.total)})
	}
	for seed, n := range to {
		c.maxInFlightTo = max(c.maxInFlightTo, n)
		if n > c.migrations.perSeed && !c.reported["inflight/"+seed+"/"+strconv.Itoa(n)] {
			c.reported["inflight/"+seed+"/"+strconv.Itoa(n)] = true
			c.violateLocked(invariant.Violation{Rule: ruleInFlight, Seed: seed, Message: fmt.Sprintf("%d migrations in flight to the seed, more than maxMigrationsInFlightPerSeed %d", n, c.migrations.perSeed)})
		}
	}
}

// flights returns the most migrations seen in flight, in all and to one seed.
func (c *checker) flights() (total, perSeed int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.maxInFlight, c.maxInFlightTo
}

// evictionSpread returns the most evictions of one shoot within loopWindow,
// that shoot, and the most of one shoot over the whole run.
func (c *checker) evictionSpread() (perMinute int, shoot string, total int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, n := range c.evictionsOf {
		total = max(total, n)
	}
	return c.maxEvictionsPerMinute, c.mostEvicted, total
}

func (c *checker) shootDeleted(s *corev1alpha1.Shoot) {
	k := key(s)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gone[k] = true
	c.poolDepartedLocked(s, c.seedOf[k], time.Now())
	delete(c.seedOf, k)
	delete(c.boundAt, k)
	if _, ours := c.created[k]; ours && !c.deleted[k] && !c.reported["lost/"+k] {
		c.reported["lost/"+k] = true
		c.violateLocked(invariant.Violation{Rule: ruleLost, Shoot: k, Message: "was deleted, but not by the run (resourceVersion " + s.ResourceVersion + ")"})
	}
}

// judgeState judges the rules of the current state: no created shoot missing,
// no shoot pending for longer than the bound while a seed fits it, none on
// a seed it must leave for longer than the bound while another seed fits it.
func (c *checker) judgeState(now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	snap := algorithm.NewSnapshot()
	seeds := map[string]*corev1alpha1.Seed{}
	for _, o := range c.objects[invariant.KindSeed] {
		s := o.(*corev1alpha1.Seed)
		seeds[s.Name] = s
		snap.AddSeed(s)
	}
	var shoots []*corev1alpha1.Shoot
	for _, o := range c.objects[invariant.KindShoot] {
		s := o.(*corev1alpha1.Shoot)
		shoots = append(shoots, s)
		snap.AddShoot(s)
	}
	profiles := map[string]*corev1alpha1.CloudProfile{}
	for _, o := range c.objects[invariant.KindCloudProfile] {
		p := o.(*corev1alpha1.CloudProfile)
		profiles[p.Name] = p
	}
	var cms []*corev1.ConfigMap
	for _, o := range c.objects[invariant.KindConfigMap] {
		cms = append(cms, o.(*corev1.ConfigMap))
	}
	for k, at := range c.created {
		if c.deleted[k] || c.reported["lost/"+k] || now.Sub(at) < 30*time.Second {
			continue
		}
		if _, ok := c.objects[invariant.KindShoot][k]; !ok {
			c.reported["lost/"+k] = true
			c.violateLocked(invariant.Violation{Rule: ruleLost, Shoot: k, Message: fmt.Sprintf("was created by the run at %s and is not there", at.UTC().Format("15:04:05.000"))})
		}
	}
	pending, leaving := map[string]bool{}, map[string]bool{}
	for _, s := range shoots {
		if s.DeletionTimestamp != nil {
			continue
		}
		k := key(s)
		name := algorithm.CloudProfileNameOf(s)
		in := algorithm.Inputs{CloudProfile: profiles[name], RegionConfigMap: algorithm.SelectRegionConfigMap(name, cms),
			Config: algorithm.Config{Strategy: algorithm.StrategySameRegion}, Migration: c.migrations != nil}
		seed := seedName(s)
		if seed == "" {
			fit, err := algorithm.Schedule(s, snap, in)
			if err != nil {
				continue
			}
			pending[k] = true
			since, ok := c.pendingFit[k]
			if !ok {
				c.pendingFit[k] = now
				continue
			}
			c.maxPending = max(c.maxPending, now.Sub(since))
			if now.Sub(since) > c.bound && !c.reported["pending/"+k+since.String()] {
				c.reported["pending/"+k+since.String()] = true
				c.violateLocked(invariant.Violation{Rule: rulePending, Shoot: k, Seed: fit,
					Message: fmt.Sprintf("has had no seed since %s although one fitted all along (now %s)", since.UTC().Format("15:04:05.000"), fit)})
			}
			continue
		}
		sd := seeds[seed]
		if sd == nil || c.migrations != nil && algorithm.Migrating(s) {
			// A shoot whose migration has not finished cannot move yet.
			continue
		}
		arrived := c.boundAt[k]
		st := algorithm.CheckNoExecute(s, sd, func(t corev1alpha1.SeedTaint) time.Time {
			var added time.Time
			if t.TimeAdded != nil {
				added = t.TimeAdded.Time
			}
			if arrived.After(added) {
				return arrived
			}
			return added
		})
		if !st.MustLeave(now) || !dueNow(s, sd, st, now) {
			continue
		}
		other, err := algorithm.FitsElsewhere(s, snap, in, seed)
		if err != nil {
			continue
		}
		leaving[k] = true
		since, ok := c.mustLeave[k]
		if !ok {
			c.mustLeave[k] = now
			continue
		}
		c.maxLeaving = max(c.maxLeaving, now.Sub(since))
		if now.Sub(since) > c.bound && !c.reported["leave/"+k+since.String()] {
			c.reported["leave/"+k+since.String()] = true
			c.violateLocked(invariant.Violation{Rule: ruleMustLeave, Shoot: k, Seed: seed,
				Message: fmt.Sprintf("has had to leave the seed since %s (untolerated %v, tolerated until %s) and seed %s fitted all along", since.UTC().Format("15:04:05.000"), taintStrings(st.Untolerated), st.StayUntil.UTC().Format("15:04:05"), other)})
		}
	}
	for k := range c.pendingFit {
		if !pending[k] {
			delete(c.pendingFit, k)
		}
	}
	for k := range c.mustLeave {
		if !leaving[k] {
			delete(c.mustLeave, k)
		}
	}
}

// settled tells whether no shoot waits for a seed that fits it and none sits
// on a seed it must leave while another fits it.
func (c *checker) settled() bool {
	c.judgeState(time.Now())
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.pendingFit) == 0 && len(c.mustLeave) == 0
}

// dueNow tells whether the move a shoot's NoExecute taints call for may
// happen now, as graft-descheduler classifies it: an urgent one always, a
// deferrable one (a drain in windows) in the shoot's window or from its
// deadline on. A live migration may go earlier; that only helps.
func dueNow(s *corev1alpha1.Shoot, seed *corev1alpha1.Seed, st algorithm.NoExecuteStatus, now time.Time) bool {
	var cause corev1alpha1.SeedTaint
	switch {
	case len(st.Untolerated) > 0:
		cause = noexecutetaints.UrgentFirst(seed, st.Untolerated)
	case st.LimitingTaint != nil:
		cause = *st.LimitingTaint
	default:
		return true
	}
	urgency, deadline := noexecutetaints.MoveUrgency(seed, cause)
	w, _ := maintenance.Of(s)
	return maintenance.Timing(now, urgency, w, deadline).Now
}

func taintStrings(ts []corev1alpha1.SeedTaint) []string {
	var out []string
	for _, t := range ts {
		out = append(out, helper.FormatTaint(t))
	}
	return out
}

// hasTaint tells whether the seed, as last seen, has a taint whose key has
// the prefix.
func (c *checker) hasTaint(seed, prefix string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	o, ok := c.objects[invariant.KindSeed][seed]
	if !ok {
		return false
	}
	for _, t := range o.(*corev1alpha1.Seed).Spec.Taints {
		if strings.HasPrefix(t.Key, prefix) {
			return true
		}
	}
	return false
}

// flush returns once the Monitor has judged every binding made before it was
// called: the shoot watch has delivered a fresh list's resourceVersion and
// nothing up to it is pending.
func (c *checker) flush(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var rv string
	for rv == "" {
		// A list brings the Monitor's shoot view up to its resourceVersion.
		var err error
		if rv, err = c.feed.Relist(ctx, invariant.KindShoot); err == nil {
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("listing shoots to flush the checker: %w", err)
		case <-time.After(time.Second):
		}
	}
	for !c.monitor.Reached(invariant.KindShoot, rv) || c.monitor.PendingUpTo(rv) > 0 {
		c.feed.CatchUp(ctx)
		select {
		case <-ctx.Done():
			return fmt.Errorf("the checker did not judge every binding up to resourceVersion %s within %s (%d pending)", rv, timeout, c.monitor.PendingUpTo(rv))
		case <-time.After(200 * time.Millisecond):
		}
	}
	return nil
}

// improvingCause tells whether a move's reason is an improving plugin's.
func improvingCause(reason string) bool {
	for _, p := range improvingPlugins {
		if strings.HasPrefix(reason, p+":") {
			return true
		}
	}
	return false
}

// improved returns how many moves the improving plugins made.
func (c *checker) improved() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.improvements
}

// timedMoves returns the deferrable moves made in a window or at a
// deadline, and the live migrations seen.
func (c *checker) timedMoves() (deferred, live int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.deferredMoves, c.liveMoves
}
