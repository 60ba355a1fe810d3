package component

import (
	"context"
	"sync"

	"k8s.io/client-go/util/workqueue"
)

// RunWorkers is the worker loop of client-go's sample-controller, for a
// component's rate-limited work queue: it runs workers goroutines that take
// keys from queue and hand each to syncHandler until ctx ends, then shuts the
// queue down and waits for them. A key whose syncHandler fails is queued
// again with the queue's backoff; one that succeeds is forgotten by the rate
// limiter. syncHandler logs and counts its own errors: only the component
// knows which of them are news.
func RunWorkers[T comparable](ctx context.Context, queue workqueue.TypedRateLimitingInterface[T], workers int, syncHandler func(context.Context, T) error) {
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for processNextWorkItem(ctx, queue, syncHandler) {
			}
		})
	}
	<-ctx.Done()
	// Workers blocked in Get return at once; those syncing see ctx canceled.
	queue.ShutDown()
	wg.Wait()
}

// processNextWorkItem syncs the next queued key; false once the queue shut
// down or ctx ended, when the worker stops. A key taken after ctx ended is
// left alone: the component has stopped (its lease may be lost), and what is
// still queued goes with the queue.
func processNextWorkItem[T comparable](ctx context.Context, queue workqueue.TypedRateLimitingInterface[T], syncHandler func(context.Context, T) error) bool {
	key, shutdown := queue.Get()
	if shutdown {
		return false
	}
	defer queue.Done(key)
	if ctx.Err() != nil {
		return false
	}
	if err := syncHandler(ctx, key); err != nil {
		queue.AddRateLimited(key)
		return true
	}
	queue.Forget(key)
	return true
}
