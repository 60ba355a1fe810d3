package capacity

import (
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clienttesting "k8s.io/client-go/testing"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/coretest"
)

// versioned makes the fake API server give every seed it patches a new
// resourceVersion, as a real one does (the fake tracker keeps them as they
// are). It returns the seeds the patches returned, in order.
func (f *fixture) versioned() *[]*v1alpha1.Seed {
	var written []*v1alpha1.Seed
	rv := 100
	gvr := v1alpha1.SchemeGroupVersion.WithResource("seeds")
	patch := clienttesting.ObjectReaction(f.client.Tracker())
	f.client.PrependReactor("patch", "seeds", func(a clienttesting.Action) (bool, runtime.Object, error) {
		handled, obj, err := patch(a)
		if !handled || err != nil {
			return handled, obj, err
		}
		seed := obj.(*v1alpha1.Seed).DeepCopy()
		rv++
		seed.ResourceVersion = strconv.Itoa(rv)
		if err := f.client.Tracker().Update(gvr, seed, ""); err != nil {
			return true, nil, err
		}
		written = append(written, seed.DeepCopy())
		return true, seed, nil
	})
	return &written
}

// TestSyncBeforeOwnWriteIsCachedWritesNothingAgain syncs a seed again
// after its status was written but before the informer shows the write: the
// sync decides on what the write returned, so it neither writes the same
// status again nor reports AllocatableChanged again, and a later usage
// change is written alone.
func TestSyncBeforeOwnWriteIsCachedWritesNothingAgain(t *testing.T) {
	f := newFixture(t, nil, coretest.MakeSeed("s1").ResourceVersion("1").Obj(), coretest.MakeShoot("garden-dev", "a").Seed("s1").Obj())
	f.versioned()
	f.sync("s1")
	if p := f.patches(); len(p) != 1 {
		t.Fatalf("want one status patch, got %+v", p)
	}
	if ev := f.events(); len(ev) != 1 {
		t.Fatalf("want one AllocatableChanged event, got %q", ev)
	}

	// The cache still holds the seed without status, and the sync period is
	// over: only the write's own answer tells that nothing is left to do.
	f.clock.Step(time.Minute)
	f.sync("s1")
	f.noWrites("the status written again on a cache without the write", true)

	f.addShoot(coretest.MakeShoot("garden-dev", "b").Seed("s1").Obj())
	f.sync("s1")
	p := f.patches()
	if len(p) != 1 || p[0].raw != `{"status":{"usage":{"shoots":"2"}}}` {
		t.Errorf("want one patch of the usage alone, got %+v", p)
	}

	// Once the cache has caught up it is what the controller reads again.
	f.refresh("s1")
	f.sync("s1")
	f.noWrites("written once the cache caught up", false)
	if written, kept := f.c.written.Written("s1"); kept {
		t.Errorf("the written copy is kept after the cache caught up (version %s)", written.ResourceVersion)
	}
}

// TestTaintsAndStatusDecidedOnTheTaintWrite: a not-ready seed is tainted and
// its status written in one sync; a sync before the informer shows either
// write writes neither again.
func TestTaintsAndStatusDecidedOnTheTaintWrite(t *testing.T) {
	f := newFixture(t, func(c *configv1alpha1.CapacityAnnotatorConfiguration) {
		c.HealthTaints = configv1alpha1.HealthTaintsConfiguration{Enabled: true, UnhealthyEvictionDelay: &metav1.Duration{Duration: time.Hour}}
	}, notReady(coretest.MakeSeed("s1").ResourceVersion("1").Obj()))
	f.versioned()
	f.sync("s1")
	p := f.patches()
	if len(p) != 2 || p[0].subresource != "" || p[1].subresource != "status" {
		t.Fatalf("want a taint patch, then a status patch, got %+v", p)
	}
	if !strings.Contains(p[0].raw, `"resourceVersion":"1"`) {
		t.Errorf("taint patch %s not bound to the cached version", p[0].raw)
	}
	f.events()

	f.clock.Step(time.Minute)
	f.sync("s1")
	f.noWrites("written again on a cache without the writes", true)
}

// TestOwnWriteEventQueuesNothing: the watch event of the annotator's own
// write is recognised, and only it: not an event that starts from another
// version, nor one that brings another writer's change with the write (a
// relist folds them into one event).
func TestOwnWriteEventQueuesNothing(t *testing.T) {
	seed := coretest.MakeSeed("s1").ResourceVersion("1").Obj()
	f := newFixture(t, nil, seed)
	f.versioned()
	f.sync("s1")
	f.patches()
	written := f.refresh("s1")

	folded := written.DeepCopy()
	folded.Annotations = map[string]string{v1alpha1.AnnotationCapacityShoots: "5"}
	if f.c.ownEcho(seed, folded) {
		t.Error("an event that also brings another writer's change taken for the annotator's write")
	}
	later := seed.DeepCopy()
	later.ResourceVersion = "50"
	if f.c.ownEcho(later, written) {
		t.Error("an event that starts from another version taken for the annotator's write")
	}
	if !f.c.ownEcho(seed, written) {
		t.Error("the event of the annotator's write not recognised")
	}
	if _, kept := f.c.written.Written("s1"); kept {
		t.Error("the written copy is kept once its event has arrived")
	}
	if f.c.ownEcho(seed, written) {
		t.Error("the event of one write recognised twice")
	}
}

// TestOwnTaintWriteEventQueuesNothing: the events of a taint write (a
// NoExecute taint included, whose timeAdded is decided here and comes back
// through JSON) and of the status write decided on it are both recognised.
func TestOwnTaintWriteEventQueuesNothing(t *testing.T) {
	seed := notReady(coretest.MakeSeed("s1").ResourceVersion("1").Obj())
	f := newFixture(t, func(c *configv1alpha1.CapacityAnnotatorConfiguration) {
		c.HealthTaints = configv1alpha1.HealthTaintsConfiguration{Enabled: true, UnhealthyEvictionDelay: &metav1.Duration{}}
	}, seed)
	written := f.versioned()
	f.clock.Step(1500 * time.Millisecond)
	f.sync("s1")
	if len(*written) != 2 {
		t.Fatalf("want a taint write and a status write, got %d writes", len(*written))
	}
	tainted, status := (*written)[0], (*written)[1]
	if got := taintsOf(tainted); strings.Join(got, ",") != "seed.gardener.cloud/not-ready:NoSchedule,seed.gardener.cloud/not-ready:NoExecute" {
		t.Fatalf("taints %v", got)
	}
	if !f.c.ownEcho(seed, tainted) {
		t.Error("the event of the taint write not recognised")
	}
	if !f.c.ownEcho(tainted, status) {
		t.Error("the event of the status write not recognised")
	}
}
