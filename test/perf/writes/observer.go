package writes

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/dynamic"
	kubeinformers "k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	versioned "github.com/graft-dev/client-go/clientset/versioned"
	graftinformers "github.com/graft-dev/client-go/informers/externalversions"
	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/garden"
)

// Observer follows the shoots and Events of one namespace until a number of
// shoots are done and each has Events with the wanted reasons. Both sides of
// a benchmark run one, so the API server serves both the same watches.
type Observer struct {
	cancel  context.CancelFunc
	ns      string
	done    func(*v1alpha1.Shoot) bool
	reasons []string

	mu       sync.Mutex
	doneAt   map[string]time.Time
	seen     map[string]map[string]bool
	complete map[string]bool
	changed  chan struct{}
}

// Observe starts following ns. done tells when a shoot's work is done (nil:
// never); every done shoot must also have one Event of each reason.
func Observe(ctx context.Context, graft versioned.Interface, kube kubernetes.Interface, ns string, done func(*v1alpha1.Shoot) bool, reasons ...string) (*Observer, error) {
	gf := graftinformers.NewSharedInformerFactoryWithOptions(graft, 0, graftinformers.WithNamespace(ns))
	return observe(ctx, gf.Core().V1alpha1().Shoots().Informer(), gf.Start, kube, ns, done, reasons)
}

// ObserveGardener is Observe on Gardener's API, whose shoots it reads as
// graft's types.
func ObserveGardener(ctx context.Context, gardener dynamic.Interface, kube kubernetes.Interface, ns string, done func(*v1alpha1.Shoot) bool, reasons ...string) (*Observer, error) {
	informers, err := garden.NewInformers(garden.Gardener, nil, gardener, nil)
	if err != nil {
		return nil, err
	}
	return observe(ctx, informers.Shoots().Informer, informers.Start, kube, ns, done, reasons)
}

func observe(ctx context.Context, shoots cache.SharedIndexInformer, start func(<-chan struct{}), kube kubernetes.Interface, ns string, done func(*v1alpha1.Shoot) bool, reasons []string) (*Observer, error) {
	ctx, cancel := context.WithCancel(ctx)
	o := &Observer{
		cancel: cancel, ns: ns, done: done, reasons: reasons,
		doneAt: map[string]time.Time{}, seen: map[string]map[string]bool{}, complete: map[string]bool{}, changed: make(chan struct{}, 1),
	}
	kf := kubeinformers.NewSharedInformerFactoryWithOptions(kube, 0, kubeinformers.WithNamespace(ns))
	events := kf.Core().V1().Events().Informer()
	if _, err := shoots.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    o.onShoot,
		UpdateFunc: func(_, obj any) { o.onShoot(obj) },
	}); err != nil {
		cancel()
		return nil, err
	}
	if _, err := events.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    o.onEvent,
		UpdateFunc: func(_, obj any) { o.onEvent(obj) },
	}); err != nil {
		cancel()
		return nil, err
	}
	start(ctx.Done())
	kf.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), shoots.HasSynced, events.HasSynced) {
		cancel()
		return nil, fmt.Errorf("following namespace %s: the caches did not sync", ns)
	}
	return o, nil
}

// Stop stops following.
func (o *Observer) Stop() { o.cancel() }

func (o *Observer) onShoot(obj any) {
	shoot, ok := obj.(*v1alpha1.Shoot)
	if !ok || shoot.Namespace != o.ns || o.done == nil || !o.done(shoot) {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, ok := o.doneAt[shoot.Name]; ok {
		return
	}
	o.doneAt[shoot.Name] = time.Now()
	o.update(shoot.Name)
}

func (o *Observer) onEvent(obj any) {
	e, ok := obj.(*corev1.Event)
	if !ok || e.InvolvedObject.Kind != "Shoot" {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.seen[e.InvolvedObject.Name] == nil {
		o.seen[e.InvolvedObject.Name] = map[string]bool{}
	}
	if o.seen[e.InvolvedObject.Name][e.Reason] {
		return
	}
	o.seen[e.InvolvedObject.Name][e.Reason] = true
	o.update(e.InvolvedObject.Name)
}

// update counts name complete when it just became so; o.mu is held.
func (o *Observer) update(name string) {
	select {
	case o.changed <- struct{}{}:
	default:
	}
	if _, ok := o.doneAt[name]; !ok || o.complete[name] {
		return
	}
	for _, r := range o.reasons {
		if !o.seen[name][r] {
			return
		}
	}
	o.complete[name] = true
}

// Wait waits until n shoots are complete. While shoots are not done, it
// gives up when nothing changes for stall; once n are done, it waits for
// their Events until nothing changes for quiet, and returns how many shoots
// still lack one (a component that drops Events never writes them).
func (o *Observer) Wait(ctx context.Context, n int, stall, quiet time.Duration) (missing int, _ error) {
	timer := time.NewTimer(stall)
	defer timer.Stop()
	wait := stall
	for {
		o.mu.Lock()
		complete, done := len(o.complete), len(o.doneAt)
		o.mu.Unlock()
		if complete >= n {
			return 0, nil
		}
		if done >= n && wait != quiet {
			wait = quiet
			timer.Reset(wait)
		}
		select {
		case <-o.changed:
			timer.Reset(wait)
		case <-timer.C:
			if done >= n {
				return n - complete, nil
			}
			return 0, fmt.Errorf("nothing changed for %v: %d of %d shoots done, %d of them with Events %v", stall, done, n, complete, o.reasons)
		case <-ctx.Done():
			return 0, errors.Join(ctx.Err(), fmt.Errorf("%d of %d shoots done, %d of them with Events %v", done, n, complete, o.reasons))
		}
	}
}

// DoneAt returns when each done shoot was seen done.
func (o *Observer) DoneAt() map[string]time.Time {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := make(map[string]time.Time, len(o.doneAt))
	for k, v := range o.doneAt {
		out[k] = v
	}
	return out
}

// Percentile returns the q-quantile (0 < q <= 1) of the durations, such as
// the binding latencies DoneAt gives; 0 for none.
func Percentile(d []time.Duration, q float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[max(0, min(len(s)-1, int(float64(len(s))*q+0.5)-1))]
}
