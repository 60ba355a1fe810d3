package leadership

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"
	"k8s.io/component-base/metrics/testutil"
	clocktesting "k8s.io/utils/clock/testing"
)

const validFor = 3 * time.Second

// fakeInformer is an informer whose store and last synced version the test sets.
type fakeInformer struct {
	mu         sync.Mutex
	store      cache.Store
	lastSynced string

	unsynced   atomic.Bool  // HasSynced is false while set
	syncChecks atomic.Int32 // calls of HasSynced
}

func newFakeInformer() *fakeInformer {
	return &fakeInformer{store: cache.NewStore(cache.MetaNamespaceKeyFunc)}
}

func (i *fakeInformer) HasSynced() bool {
	i.syncChecks.Add(1)
	return !i.unsynced.Load()
}
func (i *fakeInformer) GetStore() cache.Store { return i.store }
func (i *fakeInformer) LastSyncResourceVersion() string {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.lastSynced
}

func (i *fakeInformer) set(name, rv string) {
	_ = i.store.Update(obj(name, rv))
	i.mu.Lock()
	i.lastSynced = rv
	i.mu.Unlock()
}

func obj(name, rv string) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv}}
}

func list(rv string, items ...*metav1.PartialObjectMetadata) *freshRead {
	r := &freshRead{resourceVersion: rv, versions: map[string]string{}}
	for _, i := range items {
		r.versions[i.Namespace+"/"+i.Name] = i.ResourceVersion
	}
	return r
}

// newArmed returns an armed fence on a fake clock whose catch-up reads fresh().
func newArmed(t *testing.T, fresh func() *freshRead) (*Fence, *clocktesting.FakeClock) {
	t.Helper()
	clk := clocktesting.NewFakeClock(time.Unix(1000, 0))
	f := NewFence("test-"+strings.ToLower(t.Name()), nil)
	f.clock = clk
	f.list = func(context.Context, tracked, func(string) bool) (*freshRead, error) { return fresh(), nil }
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	f.Arm(ctx, validFor)
	return f, clk
}

// waitOpen waits (real time: the catch-up polls) until Check passes.
func waitOpen(t *testing.T, f *Fence) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for f.Check() != nil {
		if time.Now().After(deadline) {
			t.Fatalf("the fence did not open: %v", f.Check())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestUnarmedAndNilFencesLetWritesThrough(t *testing.T) {
	if err := NewFence("test-unarmed", nil).Check(); err != nil {
		t.Errorf("unarmed fence: %v", err)
	}
	var f *Fence
	if err := f.Check(); err != nil {
		t.Errorf("nil fence: %v", err)
	}
	f.Renewed(time.Now())
	f.Lost()
}

func TestFenceOpensOnRenewalAndClosesAfterValidFor(t *testing.T) {
	f, clk := newArmed(t, func() *freshRead { return list("1") })
	if err := f.Check(); !IsFenced(err) || !strings.Contains(err.Error(), "does not hold its lease") {
		t.Fatalf("before the first renewal: %v, want a fenced error saying the lease is not held", err)
	}
	f.Renewed(clk.Now())
	waitOpen(t, f)
	clk.Step(validFor - time.Millisecond)
	if err := f.Check(); err != nil {
		t.Fatalf("just within validFor: %v", err)
	}
	// A renewal on time keeps the fence open without a catch-up.
	f.Renewed(clk.Now())
	clk.Step(validFor - time.Millisecond)
	if err := f.Check(); err != nil {
		t.Fatalf("within validFor of the second renewal: %v", err)
	}
	clk.Step(time.Millisecond)
	err := f.Check()
	if !IsFenced(err) || !strings.Contains(err.Error(), "last renewed its lease 3s ago") {
		t.Fatalf("at validFor: %v, want a fenced error naming the lease's age", err)
	}
	f.Lost()
	f.Renewed(clk.Now().Add(-time.Hour)) // a late answer to an old request does not reopen it
	if err := f.Check(); !IsFenced(err) {
		t.Errorf("after losing the lease: %v", err)
	}
}

// TestFenceWaitsForInformersAfterGap replays a paused leader that renews
// again: the fence stays closed until the informer reflects a fresh read.
func TestFenceWaitsForInformersAfterGap(t *testing.T) {
	inf := newFakeInformer()
	inf.set("a", "10")
	var fresh atomic.Pointer[freshRead]
	fresh.Store(list("10", obj("a", "10")))
	f, clk := newArmed(t, func() *freshRead { return fresh.Load() })
	f.Track(inf, schema.GroupVersionResource{Resource: "things"}, "", "")
	f.Renewed(clk.Now())
	waitOpen(t, f)

	// Paused past validFor: meanwhile "a" changed and "b" was created (rv 20, 25).
	clk.Step(10 * time.Second)
	fresh.Store(list("30", obj("a", "20"), obj("b", "25")))
	f.Renewed(clk.Now())
	for range 5 {
		if err := f.Check(); !IsFenced(err) || !strings.Contains(err.Error(), "catch up") {
			t.Fatalf("renewed after a gap with a lagging informer: %v, want fenced while catching up", err)
		}
		time.Sleep(2 * catchUpPoll)
	}
	inf.set("a", "20")
	if err := f.Check(); !IsFenced(err) {
		t.Fatalf("informer still misses b: %v", err)
	}
	inf.set("b", "25")
	waitOpen(t, f)
}

// The fresh read of a resource waits for its informer's first sync, so that
// the two do not compete for the API server while a replica starts.
func TestFreshReadWaitsForTheInformersSync(t *testing.T) {
	inf := newFakeInformer()
	inf.unsynced.Store(true)
	var reads, readsUnsynced atomic.Int32
	f, clk := newArmed(t, func() *freshRead {
		reads.Add(1)
		if inf.unsynced.Load() {
			readsUnsynced.Add(1)
		}
		return list("10", obj("a", "10"))
	})
	f.Track(inf, schema.GroupVersionResource{Resource: "things"}, "", "")
	f.Renewed(clk.Now())
	// Several polls of the catch-up see the informer unsynced.
	deadline := time.Now().Add(10 * time.Second)
	for inf.syncChecks.Load() < 3 {
		if time.Now().After(deadline) {
			t.Fatal("the catch-up did not ask whether the informer has synced")
		}
		time.Sleep(catchUpPoll)
	}
	if n := reads.Load(); n != 0 {
		t.Fatalf("%d fresh reads before the informer synced, want none", n)
	}
	if err := f.Check(); !IsFenced(err) {
		t.Fatalf("informer not synced: %v, want fenced", err)
	}
	inf.set("a", "10")
	inf.unsynced.Store(false)
	waitOpen(t, f)
	if reads.Load() != 1 || readsUnsynced.Load() != 0 {
		t.Errorf("fresh reads: %d, %d of them before the sync; want one, after it", reads.Load(), readsUnsynced.Load())
	}
}

func TestCaughtUp(t *testing.T) {
	store := func(objs ...*metav1.PartialObjectMetadata) cache.Store {
		s := cache.NewStore(cache.MetaNamespaceKeyFunc)
		for _, o := range objs {
			_ = s.Add(o)
		}
		return s
	}
	fresh := list("100", obj("a", "50"), obj("b", "90"))
	for _, tc := range []struct {
		name       string
		store      cache.Store
		lastSynced string
		want       bool
	}{
		{"same objects", store(obj("a", "50"), obj("b", "90")), "90", true},
		{"synced past the read", store(), "101", true},
		{"newer objects", store(obj("a", "120"), obj("b", "90"), obj("c", "110")), "120", true},
		{"an object at an older version", store(obj("a", "50"), obj("b", "80")), "80", false},
		{"a missing object", store(obj("a", "50")), "50", false},
		{"an object deleted before the read", store(obj("a", "50"), obj("b", "90"), obj("gone", "40")), "90", false},
		{"versions that do not compare", store(obj("a", "x"), obj("b", "90")), "", false},
		// 9 < 10 although "9" > "10" as strings.
		{"numeric not lexical order", store(obj("a", "50"), obj("b", "90")), "9", true},
	} {
		if got := CaughtUp(fresh.resourceVersion, fresh.versions, tc.store, tc.lastSynced); got != tc.want {
			t.Errorf("%s: CaughtUp = %v, want %v", tc.name, got, tc.want)
		}
	}
	if r := list("10", obj("a", "9")); !CaughtUp(r.resourceVersion, r.versions, store(obj("a", "9")), "9") {
		t.Error("9 versus 10: want caught up")
	}
}

func TestTransportRefusesMutatingRequestsOnly(t *testing.T) {
	var served atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { served.Add(1) }))
	defer srv.Close()
	f, _ := newArmed(t, func() *freshRead { return list("1") })
	client := &http.Client{Transport: f.Wrap(http.DefaultTransport)}
	component := f.component

	resp, err := client.Get(srv.URL + "/apis/x/v1/things")
	if err != nil {
		t.Fatalf("a read while fenced: %v", err)
	}
	resp.Body.Close()
	for _, method := range []string{http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		req, _ := http.NewRequest(method, srv.URL+"/apis/x/v1/things/a", strings.NewReader("{}"))
		_, err := client.Do(req)
		if !errors.Is(err, ErrFenced) {
			t.Errorf("%s while fenced: %v, want ErrFenced", method, err)
		}
	}
	if n := served.Load(); n != 1 {
		t.Errorf("the server saw %d requests, want only the read", n)
	}
	got, err := testutil.GetCounterMetricValue(refusals.WithLabelValues(component, ReasonNotLeading))
	if err != nil || got != 4 {
		t.Errorf("refusals counted %v (%v), want 4", got, err)
	}
}

func TestWaitReturnsOnceWritesMayPass(t *testing.T) {
	f, clk := newArmed(t, func() *freshRead { return list("1") })
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := f.Wait(ctx); err == nil {
		t.Fatal("Wait returned before the lease was acquired")
	}
	done := make(chan error, 1)
	go func() { done <- f.Wait(context.Background()) }()
	f.Renewed(clk.Now())
	select {
	case err := <-done:
		if err != nil || f.Check() != nil {
			t.Errorf("Wait = %v, Check = %v after the renewal", err, f.Check())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Wait did not return after the renewal")
	}
}
