package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/test/framework"
	"github.com/graft-dev/graft/test/integration/descheduler/fixture"
)

var (
	shoots      = flag.Int("shoots", 1000, "shoots on the drained seed")
	targets     = flag.Int("targets", 4, "seeds the shoots may move to")
	concurrency = flag.Int("concurrency", 16, "concurrent evictions, bindings and baseline writers")
)

func main() {
	// test/framework reads the testing flags (verbosity).
	testing.Init()
	klog.InitFlags(nil)
	flag.Parse()
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "bench-drain: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	fmt.Println("starting the local control plane")
	env, err := framework.Start(ctx, framework.Options{})
	if err != nil {
		return err
	}
	defer func() {
		if err := env.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "stopping the control plane: %v\n", err)
		}
	}()

	drainL, err := landscape(ctx, env.Config(), "drain")
	if err != nil {
		return err
	}
	baseL, err := landscape(ctx, env.Config(), "base")
	if err != nil {
		return err
	}

	drain, writes, err := measureDrain(ctx, env.Config(), drainL)
	if err != nil {
		return err
	}
	baseline, err := measureBaseline(ctx, baseL)
	if err != nil {
		return err
	}
	fmt.Printf("writes per moved shoot (descheduler + scheduler, Events included, Leases excluded): %.2f\n", writes)
	fmt.Printf("drain %.1f shoots/s, baseline %.1f shoots/s, ratio %.2f\n", drain, baseline, drain/baseline)
	return nil
}

// landscape creates a seed "src" holding the shoots and the target seeds.
func landscape(ctx context.Context, cfg *rest.Config, name string) (*fixture.Landscape, error) {
	l, err := fixture.New(ctx, cfg, name)
	if err != nil {
		return nil, err
	}
	if _, err := l.Seed(ctx, "src", -1); err != nil {
		return nil, err
	}
	for i := range *targets {
		if _, err := l.Seed(ctx, fmt.Sprintf("dst-%d", i), -1); err != nil {
			return nil, err
		}
	}
	list := make([]*v1alpha1.Shoot, 0, *shoots)
	for i := range *shoots {
		list = append(list, l.NewShoot(fmt.Sprintf("s-%04d", i), "src"))
	}
	start := time.Now()
	if err := l.CreateShoots(ctx, list, 32); err != nil {
		return nil, err
	}
	fmt.Printf("%s: created %d shoots on seed %s in %v\n", name, *shoots, l.SeedName("src"), time.Since(start).Round(time.Millisecond))
	return l, nil
}

// writeCounter counts the mutating requests of the components, except the
// leader election's Lease renewals.
type writeCounter struct{ n atomic.Int64 }

func (w *writeCounter) wrap(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(req *http.Request) (*http.Response, error) {
			if req.Method != http.MethodGet && !strings.Contains(req.URL.Path, "/leases") {
				w.n.Add(1)
			}
			return rt.RoundTrip(req)
		})
	})
	return cfg
}

// counters sums a counter family by one label.
func counters(g prometheus.Gatherer, name, label string) map[string]float64 {
	out := map[string]float64{}
	families, err := g.Gather()
	if err != nil {
		return out
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == label {
					out[l.GetValue()] += m.GetCounter().GetValue()
				}
			}
		}
	}
	return out
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// measureDrain taints the source seed with the descheduler and the scheduler
// running and waits until every shoot is bound to another seed.
func measureDrain(ctx context.Context, cfg *rest.Config, l *fixture.Landscape) (rate, writesPerShoot float64, err error) {
	counter := &writeCounter{}
	componentCfg := counter.wrap(cfg)
	sched, err := fixture.StartScheduler(ctx, componentCfg, "bench-scheduler", func(c *configv1alpha1.SchedulerConfiguration) {
		c.ConcurrentSyncs = int32(*concurrency)
	})
	if err != nil {
		return 0, 0, err
	}
	defer sched.Stop()
	dcfg, err := fixture.DeschedulerConfig("bench-descheduler", func(c *configv1alpha1.DeschedulerConfiguration) {
		c.EvictionRate = ptr.To(0.0)
		c.MaxPendingEvicted = ptr.To[int32](int32(*shoots))
		c.MaxEvictionsPerSeed = ptr.To[int32](0)
		c.MaxEvictionsTotal = ptr.To[int32](0)
		c.ConcurrentEvictions = int32(*concurrency)
	})
	if err != nil {
		return 0, 0, err
	}
	desched := fixture.StartDescheduler(ctx, componentCfg, dcfg, "bench")
	defer desched.Stop()
	for desched.Descheduler == nil || !desched.Descheduler.Ready() {
		select {
		case <-ctx.Done():
			return 0, 0, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	// Let the descheduler take the lease and the scheduler settle.
	time.Sleep(2 * time.Second)

	src := l.SeedName("src")
	moved := map[string]bool{}
	observe := func(s *v1alpha1.Shoot) {
		if seed := fixture.Of(s); seed != "" && seed != src {
			moved[s.Name] = true
		}
	}
	list, err := l.Graft.CoreV1alpha1().Shoots(l.Name).List(ctx, metav1.ListOptions{})
	if err != nil {
		return 0, 0, err
	}
	rv := list.ResourceVersion
	before := counter.n.Load()
	start := time.Now()
	if err := l.SetTaints(ctx, "src", v1alpha1.SeedTaint{Key: v1alpha1.SeedTaintUnschedulable, Effect: v1alpha1.TaintEffectNoExecute}); err != nil {
		return 0, 0, err
	}
	for len(moved) < *shoots {
		// A watch may end (server timeout, compaction): list again and
		// continue from there.
		if rv == "" {
			list, err := l.Graft.CoreV1alpha1().Shoots(l.Name).List(ctx, metav1.ListOptions{})
			if err != nil {
				return 0, 0, err
			}
			for i := range list.Items {
				observe(&list.Items[i])
			}
			rv = list.ResourceVersion
			continue
		}
		w, err := l.Graft.CoreV1alpha1().Shoots(l.Name).Watch(ctx, metav1.ListOptions{ResourceVersion: rv})
		if err != nil {
			return 0, 0, err
		}
		rv = ""
		for ev := range w.ResultChan() {
			if ev.Type == watch.Error {
				break
			}
			if s, ok := ev.Object.(*v1alpha1.Shoot); ok && ev.Type != watch.Deleted {
				observe(s)
				rv = s.ResourceVersion
			}
			if len(moved) == *shoots {
				break
			}
		}
		w.Stop()
		if ctx.Err() != nil {
			return 0, 0, fmt.Errorf("drain: %d of %d shoots moved: %w", len(moved), *shoots, ctx.Err())
		}
	}
	elapsed := time.Since(start)
	// Events are written asynchronously: let the recorders finish before
	// counting writes.
	if err := desched.Stop(); err != nil {
		return 0, 0, err
	}
	if err := sched.Stop(); err != nil {
		return 0, 0, err
	}
	writes := counter.n.Load() - before
	fmt.Printf("drain: descheduler evictions by result %v; scheduler attempts by result %v\n",
		counters(desched.Registry, "graft_descheduler_evictions_total", "result"),
		counters(legacyregistry.DefaultGatherer, "graft_scheduler_schedule_attempts_total", "result"))
	rate = float64(*shoots) / elapsed.Seconds()
	fmt.Printf("drain: %d shoots moved off %s in %v with %d concurrent evictions and bindings: %.1f shoots/s, %d writes\n",
		*shoots, src, elapsed.Round(time.Millisecond), *concurrency, rate, writes)
	return rate, float64(writes) / float64(*shoots), nil
}

// measureBaseline makes, for every shoot, exactly the writes of one move with
// the same concurrency: the eviction update (read resourceVersion), the
// lastOperation status update, the binding merge patch (resourceVersion
// precondition) and the three Events (Descheduled on shoot and seed,
// Scheduled on the shoot).
func measureBaseline(ctx context.Context, l *fixture.Landscape) (float64, error) {
	list, err := l.Graft.CoreV1alpha1().Shoots(l.Name).List(ctx, metav1.ListOptions{})
	if err != nil {
		return 0, err
	}
	src, dst := l.SeedName("src"), l.SeedName("dst-0")
	jobs := make(chan *v1alpha1.Shoot)
	errs := make(chan error, len(list.Items))
	var wg sync.WaitGroup
	start := time.Now()
	for range *concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := range jobs {
				if err := move(ctx, l, s, src, dst); err != nil {
					errs <- err
				}
			}
		}()
	}
	for i := range list.Items {
		jobs <- &list.Items[i]
	}
	close(jobs)
	wg.Wait()
	elapsed := time.Since(start)
	close(errs)
	if err := <-errs; err != nil {
		return 0, err
	}
	rate := float64(len(list.Items)) / elapsed.Seconds()
	fmt.Printf("baseline: %d moves of 6 writes in %v with %d writers: %.1f shoots/s\n",
		len(list.Items), elapsed.Round(time.Millisecond), *concurrency, rate)
	return rate, nil
}

func move(ctx context.Context, l *fixture.Landscape, s *v1alpha1.Shoot, src, dst string) error {
	shoots := l.Graft.CoreV1alpha1().Shoots(s.Namespace)
	s = s.DeepCopy()
	s.Spec.SeedName = nil
	s.Annotations = map[string]string{
		v1alpha1.AnnotationDescheduledFrom:   src,
		v1alpha1.AnnotationDescheduledReason: "NoExecuteTaints: seed has NoExecute taint seed.gardener.cloud/unschedulable:NoExecute that the shoot does not tolerate",
	}
	evicted, err := shoots.Update(ctx, s, metav1.UpdateOptions{})
	if err != nil {
		return fmt.Errorf("baseline eviction of %s: %w", s.Name, err)
	}
	evicted.Status.LastOperation = &v1alpha1.LastOperation{
		Type: v1alpha1.LastOperationTypeMigrate, State: v1alpha1.LastOperationStatePending,
		Description: "Evicted from seed " + src, LastUpdateTime: metav1.Now(),
	}
	pending, err := shoots.UpdateStatus(ctx, evicted, metav1.UpdateOptions{})
	if err != nil {
		return fmt.Errorf("baseline status of %s: %w", s.Name, err)
	}
	patch, _ := json.Marshal(map[string]any{
		"metadata": map[string]any{"resourceVersion": pending.ResourceVersion},
		"spec":     map[string]any{"seedName": dst},
	})
	if _, err := shoots.Patch(ctx, s.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("baseline binding of %s: %w", s.Name, err)
	}
	shootRef := corev1.ObjectReference{APIVersion: "core.graft.dev/v1alpha1", Kind: "Shoot", Namespace: s.Namespace, Name: s.Name, UID: s.UID}
	seedRef := corev1.ObjectReference{APIVersion: "core.graft.dev/v1alpha1", Kind: "Seed", Name: src}
	for _, e := range []struct {
		ref    corev1.ObjectReference
		ns     string
		reason string
	}{
		{shootRef, s.Namespace, "Descheduled"},
		{seedRef, metav1.NamespaceDefault, "Descheduled"},
		{shootRef, s.Namespace, "Scheduled"},
	} {
		now := metav1.Now()
		ev := &corev1.Event{
			ObjectMeta:     metav1.ObjectMeta{Namespace: e.ns, Name: e.ref.Name + "." + rand.String(10)},
			InvolvedObject: e.ref, Reason: e.reason, Message: e.reason + " " + s.Name, Type: corev1.EventTypeNormal,
			FirstTimestamp: now, LastTimestamp: now, Count: 1, Source: corev1.EventSource{Component: "bench-baseline"},
		}
		if _, err := l.Kube.CoreV1().Events(e.ns).Create(ctx, ev, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("baseline Event for %s: %w", s.Name, err)
		}
	}
	return nil
}
