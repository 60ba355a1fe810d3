package main

import (
	"context"
	"sync"
	"time"

	"github.com/graft-dev/graft/test/perf/daemon"
)

// The descheduler's metrics this benchmark reads: the pass-duration
// histogram's count and sum, and the evictions it wrote.
const (
	passCount = "graft_descheduler_pass_duration_seconds_count"
	passSum   = "graft_descheduler_pass_duration_seconds_sum"
	evicted   = `graft_descheduler_evictions_total{plugin="NoExecuteTaints",result="evicted"}`
)

// pass is one or more descheduler passes that ended between two scrapes of
// its /metrics (n > 1 only when several ended within one scrape period).
type pass struct {
	at        time.Time // when the scrape saw it ended
	n         int
	seconds   float64 // their total duration, from the histogram's sum
	evictions int     // evictions written since the previous pass ended
}

// passWatcher scrapes the descheduler's /metrics every scrapePeriod and
// records each pass from the growth of the pass-duration histogram: its
// count says that passes ended, its sum how long they took.
type passWatcher struct {
	mu      sync.Mutex
	passes  []pass
	changed chan struct{}
	cancel  context.CancelFunc
	done    chan struct{}
}

const scrapePeriod = 100 * time.Millisecond

func watchPasses(ctx context.Context, d *daemon.Daemon) *passWatcher {
	ctx, cancel := context.WithCancel(ctx)
	w := &passWatcher{changed: make(chan struct{}, 1), cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(w.done)
		var lastCount, lastSum, lastEvicted float64
		t := time.NewTicker(scrapePeriod)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			// One scrape: a pass's evictions are counted before its
			// duration, so they belong to the pass whose end it shows next.
			v, err := d.Samples(ctx, evicted, passCount, passSum)
			if err != nil || v[1] <= lastCount {
				continue
			}
			ev, count, sum := v[0], v[1], v[2]
			w.mu.Lock()
			w.passes = append(w.passes, pass{at: time.Now(), n: int(count - lastCount), seconds: sum - lastSum, evictions: int(ev - lastEvicted)})
			w.mu.Unlock()
			lastCount, lastSum, lastEvicted = count, sum, ev
			select {
			case w.changed <- struct{}{}:
			default:
			}
		}
	}()
	return w
}

func (w *passWatcher) stop() {
	w.cancel()
	<-w.done
}

// list returns the passes seen so far.
func (w *passWatcher) list() []pass {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]pass(nil), w.passes...)
}

// waitFor waits until cond holds for the passes seen so far, or the timeout passes.
func (w *passWatcher) waitFor(ctx context.Context, timeout time.Duration, cond func([]pass) bool) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for !cond(w.list()) {
		select {
		case <-w.changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}
