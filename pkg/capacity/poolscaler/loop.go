package poolscaler

import (
	"context"
	"sync"
	"time"

	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/capacity/forecast"
)

// Forecast is what one forecast gives the scaler: its time, each pool's
// summary by pool name, the garden's seeds and their usage by seed name.
type Forecast struct {
	Now       time.Time
	Summaries map[string]forecast.Summary
	Seeds     []*v1alpha1.Seed
	Usage     map[string]int
}

// Loop runs the Reconciler on a goroutine of its own, a pool at a time, on
// the newest forecast: the forecast loop hands it each forecast (Forecast)
// and goes on, so that a slow API server delays the sets' steps, not the
// forecast and its metrics. A pool queued twice before it is reconciled is
// reconciled once, on the newer forecast. A failed step is decided again at
// the next forecast, as every pool is.
type Loop struct {
	reconciler *Reconciler
	pools      map[string]Pool
	queue      workqueue.TypedInterface[string]

	mu     sync.Mutex
	latest *Forecast
}

// NewLoop returns the loop of the pools (those with a ManagedSeedSet).
func NewLoop(r *Reconciler, pools []Pool) *Loop {
	l := &Loop{reconciler: r, pools: map[string]Pool{}, queue: workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[string]{Name: "graft_capacity_pool_scaler"})}
	for _, p := range pools {
		l.pools[p.Name] = p
	}
	return l
}

// Forecast hands the loop a new forecast and queues every pool.
func (l *Loop) Forecast(f Forecast) {
	l.mu.Lock()
	l.latest = &f
	l.mu.Unlock()
	for name := range l.pools {
		l.queue.Add(name)
	}
}

// Run reconciles queued pools until ctx ends.
func (l *Loop) Run(ctx context.Context) {
	go func() {
		<-ctx.Done()
		l.queue.ShutDown()
	}()
	for l.processNextWorkItem(ctx) {
	}
}

func (l *Loop) processNextWorkItem(ctx context.Context) bool {
	name, shutdown := l.queue.Get()
	if shutdown {
		return false
	}
	defer l.queue.Done(name)
	l.mu.Lock()
	f := l.latest
	l.mu.Unlock()
	p, ok := l.pools[name]
	if !ok || f == nil {
		return true
	}
	s, ok := f.Summaries[name]
	if !ok {
		s = forecast.Summary{Pool: forecast.Pool{Kind: forecast.KindPool, Name: name}} // a pool without seeds
	}
	if err := l.reconciler.Reconcile(ctx, p, s, f.Seeds, f.Usage, f.Now); err != nil && ctx.Err() == nil {
		klog.FromContext(ctx).Error(err, "Scaling the pool's ManagedSeedSet", "pool", name, "managedSeedSet", p.Set.Namespace+"/"+p.Set.Name)
	}
	return true
}
