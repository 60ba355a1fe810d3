package descheduler

import (
	"context"
	"fmt"
	goruntime "runtime"
	"time"

	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/component-base/metrics"
	"k8s.io/utils/ptr"

	"github.com/graft-dev/client-go/clientset/versioned/fake"
	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"
	"github.com/graft-dev/graft/pkg/component"
	"github.com/graft-dev/graft/pkg/coretest"
	"github.com/graft-dev/graft/pkg/garden"
)

func version(s *v1alpha1.Shoot, rv string) *v1alpha1.Shoot {
	c := s.DeepCopy()
	c.ResourceVersion = rv
	return c
}

// The descheduler's own write wins over older informer events, so that a
// lagging informer cannot make a pass see an evicted shoot on its seed.
func TestOwnWritesWinOverStaleEvents(t *testing.T) {
	st := newState()
	st.setSeed(nil, coretest.MakeSeed("a").Allocatable(-1).Obj(), t0)
	bound := coretest.MakeShoot("garden-dev", "x").Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Seed("a").Obj()
	st.setShoot(version(bound, "10"), t0, false)

	evictedShoot := version(bound, "12")
	evictedShoot.Spec.SeedName = nil
	markEvicted(evictedShoot, "a")
	st.addInflight(flight{}, 1)
	st.settleEviction(evictedShoot, t0, flight{})
	if st.pendingCount(t0) != 1 || st.snapshot.Usage("a") != 0 {
		t.Fatalf("after the eviction: pending %d, usage %d", st.pendingCount(t0), st.snapshot.Usage("a"))
	}

	// An event older than the write (another change the informer lags on).
	st.setShoot(version(bound, "11"), t0, false)
	if st.pendingCount(t0) != 1 || st.snapshot.Usage("a") != 0 || st.onSeed["a"].Len() != 0 {
		t.Fatal("a stale informer event undid the descheduler's own write")
	}

	// The informer catches up, then the scheduler binds the shoot elsewhere.
	st.setShoot(version(evictedShoot, "12"), t0, false)
	if _, waiting := st.written.Written("garden-dev/x"); waiting {
		t.Error("the write is still awaited after the informer delivered it")
	}
	placed := version(evictedShoot, "13")
	placed.Spec.SeedName = ptr.To("b")
	dropped := 0
	st.onPendingDrop = func() { dropped++ }
	st.setShoot(placed, t0, false)
	if st.pendingCount(t0) != 0 || dropped != 1 || st.snapshot.Usage("b") != 1 {
		t.Errorf("after placement: pending %d, drops %d, usage of b %d", st.pendingCount(t0), dropped, st.snapshot.Usage("b"))
	}
}

// A shoot seen arriving on a tainted seed gets its full tolerationSeconds.
func TestTolerationStartCountsFromArrival(t *testing.T) {
	st := newState()
	st.setSeed(nil, coretest.MakeSeed("a").Allocatable(-1).Taints(drainTaint).Obj(), t0)
	st.setShoot(version(coretest.MakeShoot("garden-dev", "x").Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Obj(), "4"), t0, false)
	later := t0.Add(5 * time.Minute)
	st.setShoot(version(coretest.MakeShoot("garden-dev", "x").Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Seed("a").Obj(), "5"), later, false)
	v := st.takeView([]string{"a"}, later)
	if got := v.seeds["a"].TolerationStart(v.seeds["a"].Shoots[0], drainTaint); !got.Equal(later) {
		t.Errorf("toleration start = %v, want the shoot's arrival %v", got, later)
	}
}

// resourceVersions are ordered by apimachinery's rules, which have no upper
// bound; a version that is not one an API server sends is never taken as
// stale, and does not end the wait for the descheduler's own write.
func TestOwnWritesCompareResourceVersionsAsAPIMachinery(t *testing.T) {
	st := newState()
	st.setSeed(nil, coretest.MakeSeed("a").Allocatable(-1).Obj(), t0)
	bound := coretest.MakeShoot("garden-dev", "x").Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Seed("a").Obj()
	st.setShoot(version(bound, "99999999999999999990"), t0, false)

	evictedShoot := version(bound, "100000000000000000000") // beyond uint64
	evictedShoot.Spec.SeedName = nil
	st.addInflight(flight{}, 1)
	st.settleEviction(evictedShoot, t0, flight{})

	st.setShoot(version(bound, "99999999999999999999"), t0, false)
	if st.snapshot.Usage("a") != 0 || st.onSeed["a"].Len() != 0 {
		t.Fatal("a stale informer event undid the descheduler's own write")
	}

	st.setShoot(version(bound, "not-a-version"), t0, false)
	if st.onSeed["a"].Len() != 1 {
		t.Error("an event with an unordered resourceVersion was dropped")
	}
	if _, waiting := st.written.Written("garden-dev/x"); !waiting {
		t.Error("an event with an unordered resourceVersion ended the wait for the own write")
	}
}

// TestSyncedMeansEveryShootIsInTheState: the descheduler counts as synced
// only once its handlers have put every listed shoot into the state a pass
// reads; the informers' stores holding them is not enough (a one-shot pass
// runs right after). The test looks at the state the moment the sync checks
// first pass, as a tight loop, not WaitForCacheSync's 100ms poll, sees it.
func TestSyncedMeansEveryShootIsInTheState(t *testing.T) {
	const n = 5000
	objs := []runtime.Object{coretest.MakeSeed("a").Allocatable(-1).Obj(), cloudProfile()}
	for i := range n {
		objs = append(objs, coretest.MakeShoot("garden-dev", fmt.Sprintf("s-%04d", i)).Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Seed("a").Obj())
	}
	cfg := &configv1alpha1.DeschedulerConfiguration{}
	defaultResolved(cfg)
	d, err := New(cfg, component.Clients{Graft: fake.NewSimpleClientset(objs...), Kubernetes: kubefake.NewSimpleClientset()}, Options{Registry: metrics.NewKubeRegistry()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer func() {
		cancel()
		d.informers.Shutdown()
		d.regionConfigs.Shutdown()
	}()
	d.informers.Start(ctx.Done())
	d.regionConfigs.Start(ctx.Done())
	deadline := time.Now().Add(time.Minute)
	for {
		synced := true
		for _, f := range d.synced {
			synced = synced && f()
		}
		if synced {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("never synced")
		}
		goruntime.Gosched()
	}
	d.state.mu.Lock()
	got := len(d.state.shoots)
	d.state.mu.Unlock()
	if got != n {
		t.Errorf("state holds %d shoots once synced, want %d", got, n)
	}
}

// markEvicted marks the shoot as graft-descheduler does when it evicts it
// from the seed: graft.dev/descheduled-from and its eviction record.
func markEvicted(s *v1alpha1.Shoot, seed string) {
	if s.Annotations == nil {
		s.Annotations = map[string]string{}
	}
	s.Annotations[v1alpha1.AnnotationDescheduledFrom] = seed
	s.Annotations[v1alpha1.AnnotationEvictions] = helper.RecordEviction(testRecordKey.verified(s), testRecordKey.sign(s.UID, helper.Eviction{Seed: seed, Cause: "test", At: t0}), time.Hour)
}

// testRecordKey is the key the harness's descheduler signs its records with.
var testRecordKey = recordKey("graft-descheduler-unit-test-key!")

// On Gardener a shoot whose control plane is moving is not moved again, and
// every migration in flight counts, per destination too, whoever started it:
// those the informer shows and those being written. Only the shoots of the
// schedulers named in moveSchedulerNames may move.
func TestMigrationsInFlight(t *testing.T) {
	st := newState()
	st.moves = garden.Gardener.Moves()
	st.movable = sets.New("graft-scheduler")
	st.setSeed(nil, coretest.MakeSeed("a").Allocatable(-1).Obj(), t0)
	st.setSeed(nil, coretest.MakeSeed("b").Allocatable(-1).Obj(), t0)
	ours := func(s *v1alpha1.Shoot) *v1alpha1.Shoot {
		s.Spec.SchedulerName = ptr.To("graft-scheduler")
		return s
	}
	running := func(s *v1alpha1.Shoot, seed string) *v1alpha1.Shoot {
		s.Status.SeedName = ptr.To(seed)
		return s
	}
	moving := running(ours(coretest.MakeShoot("garden-dev", "moving").Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Seed("b").Obj()), "a")
	st.setShoot(version(moving, "1"), t0, false)
	st.setShoot(version(running(coretest.MakeShoot("garden-dev", "gardeners").Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Seed("a").Obj(), "a"), "2"), t0, false)
	st.setShoot(version(running(ours(coretest.MakeShoot("garden-dev", "ours").Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Seed("a").Obj()), "a"), "3"), t0, false)

	if total, to, _ := st.migrationsInFlight("b", t0); total != 1 || to != 1 {
		t.Errorf("in flight %d, to b %d; want 1 and 1", total, to)
	}
	v := st.takeView([]string{"a", "b"}, t0)
	if got := v.seeds["a"].Shoots; len(got) != 1 || got[0].Name != "ours" {
		t.Errorf("shoots that may move off a: %v, want only ours (gardeners names another scheduler)", got)
	}
	if got := v.seeds["b"].Shoots; len(got) != 0 {
		t.Errorf("shoots that may move off b: %v, want none (moving has not arrived)", got)
	}
	if !v.evacuating.Has("a") || v.evacuating.Has("b") {
		t.Errorf("evacuating seeds %v, want a only", v.evacuating)
	}

	// A migration being written counts at once, and once when written.
	st.addInflight(flight{target: "b"}, 1)
	if total, to, _ := st.migrationsInFlight("b", t0); total != 2 || to != 2 {
		t.Errorf("with one being written: in flight %d, to b %d; want 2 and 2", total, to)
	}
	written := version(running(ours(coretest.MakeShoot("garden-dev", "ours").Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Seed("b").Obj()), "a"), "4")
	st.settleEviction(written, t0, flight{target: "b"})
	if total, to, _ := st.migrationsInFlight("b", t0); total != 2 || to != 2 {
		t.Errorf("once written: in flight %d, to b %d; want 2 and 2", total, to)
	}
	// gardenlet finishes one.
	st.setShoot(version(running(ours(coretest.MakeShoot("garden-dev", "moving").Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Seed("b").Obj()), "b"), "5"), t0, false)
	if total, to, _ := st.migrationsInFlight("a", t0); total != 1 || to != 0 {
		t.Errorf("after one finished: in flight %d, to a %d; want 1 and 0", total, to)
	}

	// A tenant's new shoot marked as if evicted holds nothing back here:
	// on Gardener no eviction leaves a shoot without a seed.
	forged := ours(coretest.MakeShoot("garden-dev", "forged").Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Obj())
	forged.Spec.SchedulerName = ptr.To(v1alpha1.DefaultSchedulerName)
	markEvicted(forged, "a")
	st.setShoot(version(forged, "6"), t0, false)
	if n := st.pendingCount(t0); n != 0 {
		t.Errorf("a shoot marked evicted by its tenant counts as %d pending evictions, want 0", n)
	}
}

// TestStuckMigrationsHoldNothing: a tenant that breaks its own shoot (its
// credentials, its infrastructure) leaves its migration in flight for ever.
// Once stuck (lastOperation failed, or in flight for migrationTimeout as
// this process saw it) it no longer counts against the migration budgets
// nor keeps the seed it leaves closed as being evacuated, whatever the shoot
// records of its own times.
func TestStuckMigrationsHoldNothing(t *testing.T) {
	st := newState()
	st.moves = garden.Gardener.Moves()
	st.migrationTimeout = time.Hour
	st.setSeed(nil, coretest.MakeSeed("a").Allocatable(-1).Obj(), t0)
	st.setSeed(nil, coretest.MakeSeed("b").Allocatable(-1).Obj(), t0)
	st.setSeed(nil, coretest.MakeSeed("c").Allocatable(-1).Obj(), t0)
	migrating := func(name, from, to string) *v1alpha1.Shoot {
		s := coretest.MakeShoot("garden-dev", name).Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Seed(to).Obj()
		s.Status.SeedName = ptr.To(from)
		return s
	}
	// Ten broken shoots of one tenant migrating a -> b; one migration of
	// another tenant's c -> b, started later and going well.
	for i := range 10 {
		s := migrating(fmt.Sprintf("broken%d", i), "a", "b")
		// What the shoot says of itself is no clock: a binding record of now.
		s.Annotations = map[string]string{v1alpha1.AnnotationPlacedOn: helper.FormatPlacement("b", t0.Add(5*time.Hour))}
		st.setShoot(version(s, fmt.Sprint(i+1)), t0, false)
	}
	failed := migrating("failed", "c", "b")
	failed.Status.LastOperation = &v1alpha1.LastOperation{Type: v1alpha1.LastOperationTypeMigrate, State: v1alpha1.LastOperationStateFailed}
	st.setShoot(version(failed, "20"), t0.Add(30*time.Minute), false)
	// A failure of the reconcile before the binding is not the migration's:
	// that migration counts as any young one.
	stale := migrating("stale", "c", "b")
	stale.Status.LastOperation = &v1alpha1.LastOperation{Type: v1alpha1.LastOperationTypeReconcile, State: v1alpha1.LastOperationStateFailed}
	st.setShoot(version(stale, "21"), t0, false)

	at := t0.Add(30 * time.Minute)
	if total, to, stuck := st.migrationsInFlight("b", at); total != 11 || to != 11 || stuck != 1 {
		t.Errorf("after 30m: in flight %d, to b %d, stuck %d; want 11 (with the stale failure), 11 and the failed one stuck", total, to, stuck)
	}
	if ev := st.evacuatingLocked(at); !ev.Has("a") || !ev.Has("c") {
		t.Errorf("after 30m: evacuating %v, want a (its migrations are young) and c (its stale failure's migration is young)", sets.List(ev))
	}

	// An hour after this process saw them start they are stuck.
	at = t0.Add(time.Hour)
	if total, to, stuck := st.migrationsInFlight("b", at); total != 0 || to != 0 || stuck != 12 {
		t.Errorf("after 1h: in flight %d, to b %d, stuck %d; want 0, 0, 12", total, to, stuck)
	}
	v := st.takeView([]string{"a", "b", "c"}, at)
	if v.evacuating.Len() != 0 {
		t.Errorf("after 1h: seeds %v still closed as evacuating by stuck migrations", sets.List(v.evacuating))
	}

	// A new migration off a counts and closes a again; one that moves on to
	// another destination starts its clock anew.
	st.setShoot(version(migrating("fresh", "a", "c"), "30"), at, false)
	st.setShoot(version(migrating("broken0", "a", "c"), "31"), at, false)
	if total, to, _ := st.migrationsInFlight("c", at.Add(time.Minute)); total != 2 || to != 2 {
		t.Errorf("new migrations: in flight %d, to c %d; want 2 and 2", total, to)
	}
	if ev := st.evacuatingLocked(at.Add(time.Minute)); !ev.Has("a") {
		t.Errorf("a migration in flight off a does not close it: %v", sets.List(ev))
	}
	// Finished or deleted, a migration leaves no clock behind.
	st.setShoot(version(coretest.MakeShoot("garden-dev", "fresh").Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Seed("c").Obj(), "32"), at, false)
	st.removeShoot("garden-dev/broken0")
	if _, ok := st.moving["garden-dev/fresh"]; ok {
		t.Error("a finished migration keeps its clock")
	}
	if len(st.moving) != 11 {
		t.Errorf("%d clocks kept, want the 11 still migrating", len(st.moving))
	}
}

// TestSchedulerNameToggleKeepsTheStuckClock: on graft's API a tenant that
// switches its evicted, unplaceable shoot's spec.schedulerName away and
// back does not make its move young again: an hour after the eviction was
// seen the move is stuck and holds no budget.
func TestSchedulerNameToggleKeepsTheStuckClock(t *testing.T) {
	st := newState()
	st.migrationTimeout = time.Hour
	st.setSeed(nil, coretest.MakeSeed("a").Allocatable(-1).Obj(), t0)
	s := coretest.MakeShoot("garden-evil", "x").Created(t0).Obj()
	markEvicted(s, "a")
	st.setShoot(version(s, "10"), t0, false)
	if st.pendingCount(t0) != 1 {
		t.Fatalf("pending %d after the eviction, want 1", st.pendingCount(t0))
	}
	away := version(s, "11")
	away.Spec.SchedulerName = ptr.To("elsewhere")
	st.setShoot(away, t0.Add(50*time.Minute), false)
	st.setShoot(version(s, "12"), t0.Add(51*time.Minute), false)
	if total, _ := st.stuckMoves(t0.Add(time.Hour), func(*v1alpha1.Shoot) string { return "a" }); total != 1 {
		t.Errorf("%d stuck moves an hour after the eviction, want 1: the toggle restarted the clock", total)
	}
	if n := st.pendingCount(t0.Add(time.Hour)); n != 0 {
		t.Errorf("pending %d an hour after the eviction, want 0 (a stuck move holds no slot of maxPendingEvicted)", n)
	}
}

// TestMigrationsBeingWrittenAreNotPending: maxPendingEvicted bounds the
// evicted shoots that will wait for a seed. A migration being written is
// bound to its destination and never waits: counting it made a pass's
// refusals depend on how fast its writers were. An eviction being written
// counts.
func TestMigrationsBeingWrittenAreNotPending(t *testing.T) {
	st := newState()
	st.moves = garden.Gardener.Moves()
	st.addInflight(flight{namespace: "garden-dev", target: "b"}, 1)
	if n := st.pendingCount(t0); n != 0 {
		t.Errorf("a migration being written counts as %d pending evictions, want 0", n)
	}
	st.addInflight(flight{namespace: "garden-dev"}, 1)
	if n := st.pendingCount(t0); n != 1 {
		t.Errorf("an eviction being written and a migration count as %d pending evictions, want 1", n)
	}
}
