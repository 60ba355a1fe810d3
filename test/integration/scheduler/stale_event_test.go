//go:build integration

package scheduler

import (
	"math"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/scheduler"
)

// notificationGate holds back the scheduler's shoot notifications, in order,
// as a lagging informer delivers them: notifications of the watched shoot
// newer than releasedUpTo wait, and so does everything queued behind them.
// The informer's store (what the scheduler's lister reads) is not held.
type notificationGate struct {
	next  cache.ResourceEventHandler
	shoot string

	mu           sync.Mutex
	cond         *sync.Cond
	releasedUpTo int64
	delivered    int64
}

func newNotificationGate(shoot string) *notificationGate {
	g := &notificationGate{shoot: shoot, releasedUpTo: math.MaxInt64}
	g.cond = sync.NewCond(&g.mu)
	return g
}

func (g *notificationGate) wrap(next cache.ResourceEventHandler) cache.ResourceEventHandler {
	g.next = next
	return g
}

func (g *notificationGate) OnAdd(obj any, initial bool) {
	rv := g.hold(obj)
	g.next.OnAdd(obj, initial)
	g.done(rv)
}

func (g *notificationGate) OnUpdate(old, cur any) {
	rv := g.hold(cur)
	g.next.OnUpdate(old, cur)
	g.done(rv)
}

func (g *notificationGate) OnDelete(obj any) {
	g.next.OnDelete(obj)
}

// hold waits while the notification is of the watched shoot and newer than
// what was released; it returns the shoot's resourceVersion (0 for others).
func (g *notificationGate) hold(obj any) int64 {
	shoot, ok := obj.(*v1alpha1.Shoot)
	if !ok || shoot.Name != g.shoot {
		return 0
	}
	rv, _ := strconv.ParseInt(shoot.ResourceVersion, 10, 64)
	g.mu.Lock()
	defer g.mu.Unlock()
	for rv > g.releasedUpTo {
		g.cond.Wait()
	}
	return rv
}

func (g *notificationGate) done(rv int64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if rv > g.delivered {
		g.delivered = rv
	}
	g.cond.Broadcast()
}

// release lets the watched shoot's notifications up to rv through.
func (g *notificationGate) release(rv string) {
	n, _ := strconv.ParseInt(rv, 10, 64)
	g.mu.Lock()
	defer g.mu.Unlock()
	g.releasedUpTo = n
	g.cond.Broadcast()
}

// waitDelivered waits until the scheduler's handler has processed the
// watched shoot's notification of rv.
func (g *notificationGate) waitDelivered(t *testing.T, rv string, timeout time.Duration) {
	t.Helper()
	n, _ := strconv.ParseInt(rv, 10, 64)
	deadline := time.Now().Add(timeout)
	stop := time.AfterFunc(timeout, func() {
		g.mu.Lock()
		g.cond.Broadcast()
		g.mu.Unlock()
	})
	defer stop.Stop()
	g.mu.Lock()
	defer g.mu.Unlock()
	for g.delivered < n {
		if time.Now().After(deadline) {
			t.Fatalf("the scheduler did not process the notification of resourceVersion %s within %s", rv, timeout)
		}
		g.cond.Wait()
	}
}

// TestStaleShootNotificationDoesNotOverfillSeed replays, against a real API
// server, the order that overfilled a seed: a shoot evicted by the
// descheduler (spec, then status) is bound to the only free slot of seed a
// while the scheduler's shoot notifications lag; the late notification of
// the status write still names the seed the shoot left (status.seedName) and
// must not release the slot, which a second shoot then asks for.
func TestStaleShootNotificationDoesNotOverfillSeed(t *testing.T) {
	f := newFixture(t)
	seedA := f.createSeed("a", "eu-west-1", ptr.To[int64](1), nil).Name

	// moved sits on a seed it is about to leave; second waits for a cloud
	// profile that does not exist yet.
	moved := f.newShoot("moved", "eu-west-1")
	moved.Spec.SeedName = ptr.To("gone-" + f.name)
	moved = f.createShoot(moved)
	moved.Status.SeedName = ptr.To("gone-" + f.name)
	moved, err := f.graft.CoreV1alpha1().Shoots(f.ns).UpdateStatus(f.ctx, moved, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	second := f.newShoot("second", "eu-west-1")
	second.Spec.CloudProfileName = ptr.To(f.name + "-late")
	f.createShoot(second)

	gate := newNotificationGate("moved")
	startSchedulerWith(t, "sched-stale-"+f.name, nil, nil, scheduler.Options{WrapShootHandler: gate.wrap})
	f.waitFor("second to be found unschedulable", 30*time.Second, func() (bool, error) {
		return len(f.events("second", scheduler.ReasonSchedulingFailed)) > 0, nil
	})

	// From now on the scheduler's handler lags behind its store.
	gate.release(moved.ResourceVersion)
	evicted := moved.DeepCopy()
	evicted.Spec.SeedName = nil
	evicted.Annotations = map[string]string{v1alpha1.AnnotationDescheduledFrom: "gone-" + f.name}
	specWrite, err := f.graft.CoreV1alpha1().Shoots(f.ns).Update(f.ctx, evicted, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	specWrite.Status.LastOperation = &v1alpha1.LastOperation{
		Type: v1alpha1.LastOperationTypeMigrate, State: v1alpha1.LastOperationStatePending,
		Description: "evicted", LastUpdateTime: metav1.Now(),
	}
	statusWrite, err := f.graft.CoreV1alpha1().Shoots(f.ns).UpdateStatus(f.ctx, specWrite, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ptr.Deref(statusWrite.Status.SeedName, "") == "" {
		t.Fatal("the status write cleared status.seedName; the replay needs it kept, as an eviction keeps it")
	}

	// The notification of the spec write queues the shoot; the scheduler
	// reads the newest version from its store and binds it to a.
	gate.release(specWrite.ResourceVersion)
	if seed := f.waitForSeed("moved", 30*time.Second); seed != seedA {
		t.Fatalf("moved went to %s, want %s", seed, seedA)
	}
	// Only now does the notification of the status write arrive.
	gate.release(statusWrite.ResourceVersion)
	gate.waitDelivered(t, statusWrite.ResourceVersion, 30*time.Second)

	// The cloud profile appears: second is decided again while the binding
	// of moved is still not shown to the scheduler's handler.
	f.createCloudProfile(func(cp *v1alpha1.CloudProfile) { cp.Name = f.name + "-late" })
	f.waitFor("second to be bound or refused for capacity", 30*time.Second, func() (bool, error) {
		if s := f.getShoot("second"); s.Spec.SeedName != nil {
			return true, nil
		}
		for _, e := range f.events("second", scheduler.ReasonSchedulingFailed) {
			if !strings.Contains(e.Message, "cloud profile") {
				return true, nil
			}
		}
		return false, nil
	})
	if s := f.getShoot("second"); s.Spec.SeedName != nil {
		t.Errorf("second was bound to %s although %s (allocatable 1) holds moved", *s.Spec.SeedName, seedA)
	}
	onA := 0
	list, err := f.graft.CoreV1alpha1().Shoots(f.ns).List(f.ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range list.Items {
		if ptr.Deref(s.Spec.SeedName, "") == seedA {
			onA++
		}
	}
	if onA > 1 {
		t.Errorf("seed %s holds %d shoots, allocatable 1", seedA, onA)
	}
	gate.release(strconv.FormatInt(math.MaxInt64, 10))
}
