package component

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/workqueue"
)

func fastQueue() workqueue.TypedRateLimitingInterface[string] {
	return workqueue.NewTypedRateLimitingQueue(workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Millisecond, time.Millisecond))
}

// TestRunWorkers: the workers sync keys concurrently, a failed key is synced
// again and forgotten once it succeeds, and RunWorkers returns with the queue
// shut down once ctx ends.
func TestRunWorkers(t *testing.T) {
	queue := fastQueue()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	calls := map[string]int{}
	entered := make(chan string, 4)
	release := make(chan struct{})
	syncHandler := func(_ context.Context, key string) error {
		mu.Lock()
		calls[key]++
		first := calls[key] == 1
		mu.Unlock()
		if key == "flaky" && first {
			return errors.New("first sync fails")
		}
		entered <- key
		<-release
		return nil
	}
	done := make(chan struct{})
	go func() {
		RunWorkers(ctx, queue, 2, syncHandler)
		close(done)
	}()
	queue.Add("flaky")
	queue.Add("steady")
	// Both keys are in syncHandler at once: two workers run.
	in := map[string]bool{}
	for len(in) < 2 {
		select {
		case k := <-entered:
			in[k] = true
		case <-time.After(wait.ForeverTestTimeout):
			t.Fatalf("synced %v at once, want flaky and steady", in)
		}
	}
	close(release)
	cancel()
	select {
	case <-done:
	case <-time.After(wait.ForeverTestTimeout):
		t.Fatal("RunWorkers did not return after ctx ended")
	}
	if !queue.ShuttingDown() {
		t.Error("the queue was not shut down")
	}
	if calls["flaky"] != 2 || calls["steady"] != 1 {
		t.Errorf("syncs %v, want flaky twice and steady once", calls)
	}
	if n := queue.NumRequeues("flaky"); n != 0 {
		t.Errorf("flaky has %d requeues after it synced, want it forgotten", n)
	}
}

// TestProcessNextWorkItemAfterStop: a key taken once ctx ended is not synced
// (the component stopped, its lease may be lost) and the worker stops.
func TestProcessNextWorkItemAfterStop(t *testing.T) {
	queue := fastQueue()
	defer queue.ShutDown()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	queue.Add("late")
	synced := false
	if processNextWorkItem(ctx, queue, func(context.Context, string) error { synced = true; return nil }) {
		t.Error("the worker goes on after ctx ended")
	}
	if synced {
		t.Error("a key was synced after ctx ended")
	}
	if queue.Len() != 0 {
		t.Errorf("%d keys queued, want the late key taken and done", queue.Len())
	}
}
