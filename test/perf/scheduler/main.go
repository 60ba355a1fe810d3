package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	graftclient "github.com/graft-dev/client-go/clientset/versioned"
	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/component/clientconn"
	"github.com/graft-dev/graft/pkg/scheduler"
	"github.com/graft-dev/graft/test/framework"
)

type options struct {
	seeds, shoots, workers int
	kubeconfig             string
	cpuProfile             string
	verbose                bool
}

func main() {
	var o options
	flag.IntVar(&o.seeds, "seeds", 100, "number of seeds (N)")
	flag.IntVar(&o.shoots, "shoots", 5000, "number of pending shoots (M), for the scheduler and again for the baseline")
	flag.IntVar(&o.workers, "workers", 16, "concurrency: the scheduler's concurrentSyncs and the baseline's writers")
	flag.StringVar(&o.kubeconfig, "kubeconfig", "", "use this garden instead of starting a local control plane")
	flag.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the scheduler's run to this file")
	flag.BoolVar(&o.verbose, "verbose", false, "show the control plane's and the scheduler's logs")
	flag.Parse()
	if !o.verbose {
		klog.LogToStderr(false)
		klog.SetOutput(devNull{})
	}
	if err := run(context.Background(), o); err != nil {
		fmt.Fprintf(os.Stderr, "bench-scheduler: %v\n", err)
		os.Exit(1)
	}
}

type devNull struct{}

func (devNull) Write(p []byte) (int, error) { return len(p), nil }

func run(ctx context.Context, o options) error {
	var restConfig *rest.Config
	if o.kubeconfig != "" {
		env, err := framework.Start(ctx, framework.Options{UseKubeconfig: true})
		if err != nil {
			return err
		}
		restConfig = env.RESTConfig
	} else {
		fmt.Println("starting the local control plane")
		cpOpts := framework.ControlPlaneOptions{}
		if o.verbose {
			cpOpts.Log = os.Stderr
		}
		cp, err := framework.StartControlPlane(ctx, cpOpts)
		if err != nil {
			return err
		}
		defer cp.Stop()
		if err := framework.InstallCRDs(ctx, cp.RESTConfig); err != nil {
			return err
		}
		restConfig = cp.RESTConfig
	}
	restConfig = rest.CopyConfig(restConfig)
	// Neither side may be throttled by the client: the API server is measured.
	restConfig.QPS, restConfig.Burst = 100000, 100000
	graft := graftclient.NewForConfigOrDie(restConfig)
	kube := kubernetes.NewForConfigOrDie(restConfig)

	b := &bench{o: o, graft: graft, kube: kube, profile: "bench"}
	fmt.Printf("creating %d seeds\n", o.seeds)
	if err := b.setup(ctx); err != nil {
		return err
	}

	// The baseline runs half before and half after the scheduler, so that a
	// machine whose load drifts during the run biases neither side.
	firstHalf, secondHalf := o.shoots/2, o.shoots-o.shoots/2
	baseFirst, err := b.runBaseline(ctx, "bench-baseline-1", firstHalf)
	if err != nil {
		return err
	}

	fmt.Printf("scheduler: creating %d shoots\n", o.shoots)
	created, err := b.createShoots(ctx, "bench-scheduler", "", o.shoots)
	if err != nil {
		return err
	}
	fmt.Printf("scheduler: starting graft-scheduler with concurrentSyncs %d\n", o.workers)
	elapsed, eventsElapsed, latencies, err := b.schedule(ctx, restConfig, created)
	if err != nil {
		return err
	}
	rate := float64(o.shoots) / elapsed.Seconds()
	fmt.Printf("scheduler: %d shoots bound in %v, their %d Scheduled events written in %v (%.1f shoots/s counting the events)\n",
		o.shoots, elapsed.Round(time.Millisecond), o.shoots, eventsElapsed.Round(time.Millisecond), float64(o.shoots)/eventsElapsed.Seconds())

	baseSecond, err := b.runBaseline(ctx, "bench-baseline-2", secondHalf)
	if err != nil {
		return err
	}
	baseRate := float64(o.shoots) / (baseFirst + baseSecond).Seconds()
	fmt.Printf("seeds %d, shoots %d, concurrency %d\n", o.seeds, o.shoots, o.workers)
	fmt.Printf("creation to binding: p50 %v, p99 %v\n", percentile(latencies, 0.50).Round(time.Millisecond), percentile(latencies, 0.99).Round(time.Millisecond))
	fmt.Printf("scheduler %.1f shoots/s, baseline %.1f shoots/s, ratio %.2f\n", rate, baseRate, rate/baseRate)
	return nil
}

type bench struct {
	o       options
	graft   graftclient.Interface
	kube    kubernetes.Interface
	profile string
}

// created is a shoot as the create call returned it, with when it returned.
type created struct {
	shoot *v1alpha1.Shoot
	at    time.Time
}

// regions spread the landscape so that decisions have work to do.
var regions = []string{"eu-west-1", "eu-central-1", "us-east-1", "us-west-2", "ap-south-1"}

// runBaseline creates n shoots in ns for the baseline and runs it on them.
func (b *bench) runBaseline(ctx context.Context, ns string, n int) (time.Duration, error) {
	fmt.Printf("baseline: creating %d shoots\n", n)
	shoots, err := b.createShoots(ctx, ns, "baseline-only", n)
	if err != nil {
		return 0, err
	}
	fmt.Printf("baseline: patching seedName and writing one Event per shoot, %d writers\n", b.o.workers)
	// The same watches observe both sides, so the API server serves the same
	// watch traffic to the baseline as to the scheduler.
	obs, err := b.observe(ctx, ns)
	if err != nil {
		return 0, err
	}
	defer obs.stop()
	go func() {
		for range obs.shoots.ResultChan() {
		}
	}()
	go func() {
		for range obs.events.ResultChan() {
		}
	}()
	elapsed, err := b.baseline(ctx, shoots)
	if err != nil {
		return 0, err
	}
	fmt.Printf("baseline: %d shoots in %v (%.1f shoots/s)\n", n, elapsed.Round(time.Millisecond), float64(n)/elapsed.Seconds())
	return elapsed, nil
}

func (b *bench) setup(ctx context.Context) error {
	for _, ns := range []string{"bench-baseline-1", "bench-baseline-2", "bench-scheduler"} {
		if _, err := b.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			return err
		}
	}
	if _, err := b.graft.CoreV1alpha1().CloudProfiles().Create(ctx, &v1alpha1.CloudProfile{
		ObjectMeta: metav1.ObjectMeta{Name: b.profile},
		Spec:       v1alpha1.CloudProfileSpec{Type: "aws"},
	}, metav1.CreateOptions{}); err != nil {
		return err
	}
	// Capacity is ample: the benchmark measures throughput, not placement.
	allocatable := int64(2*b.o.shoots/b.o.seeds*len(regions) + 10)
	return parallel(b.o.seeds, 16, func(i int) error {
		now := metav1.Now()
		seed, err := b.graft.CoreV1alpha1().Seeds().Create(ctx, &v1alpha1.Seed{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("seed-%04d", i), Labels: map[string]string{"tier": fmt.Sprint(i % 3)}},
			Spec: v1alpha1.SeedSpec{
				Provider: v1alpha1.SeedProvider{Type: "aws", Region: regions[i%len(regions)], Zones: []string{"a", "b", "c"}},
				Networks: v1alpha1.SeedNetworks{Pods: "100.96.0.0/11", Services: "100.64.0.0/13", Nodes: ptr.To("10.250.0.0/16")},
			},
		}, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		seed.Status = v1alpha1.SeedStatus{
			LastOperation: &v1alpha1.LastOperation{Type: v1alpha1.LastOperationTypeReconcile, State: v1alpha1.LastOperationStateSucceeded, Description: "ok", LastUpdateTime: now},
			Conditions:    []v1alpha1.Condition{{Type: v1alpha1.SeedGardenletReady, Status: v1alpha1.ConditionTrue, LastTransitionTime: now, LastUpdateTime: now}},
			Allocatable:   corev1.ResourceList{v1alpha1.ResourceShoots: *resource.NewQuantity(allocatable, resource.DecimalSI)},
		}
		_, err = b.graft.CoreV1alpha1().Seeds().UpdateStatus(ctx, seed, metav1.UpdateOptions{})
		return err
	})
}

func (b *bench) createShoots(ctx context.Context, ns, schedulerName string, n int) ([]created, error) {
	out := make([]created, n)
	err := parallel(n, 32, func(i int) error {
		shoot := &v1alpha1.Shoot{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("shoot-%05d", i)},
			Spec: v1alpha1.ShootSpec{
				CloudProfileName: ptr.To(b.profile),
				Provider:         v1alpha1.Provider{Type: "aws", Workers: []v1alpha1.Worker{{Name: "pool", Zones: []string{"a"}}}},
				Region:           regions[i%len(regions)],
				Networking:       &v1alpha1.Networking{Nodes: ptr.To("10.180.0.0/16"), Pods: ptr.To("10.96.0.0/11"), Services: ptr.To("10.64.0.0/13")},
			},
		}
		if schedulerName != "" {
			shoot.Spec.SchedulerName = ptr.To(schedulerName)
		}
		c, err := b.graft.CoreV1alpha1().Shoots(ns).Create(ctx, shoot, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		out[i] = created{shoot: c, at: time.Now()}
		return nil
	})
	return out, err
}

// baseline makes, per shoot, the writes a minimal scheduler must make: a
// merge patch of spec.seedName carrying the read resourceVersion, and one
// Event, with the same number of writers as the scheduler's workers.
func (b *bench) baseline(ctx context.Context, shoots []created) (time.Duration, error) {
	seeds := b.o.seeds
	start := time.Now()
	err := parallel(len(shoots), b.o.workers, func(i int) error {
		shoot := shoots[i].shoot
		seed := fmt.Sprintf("seed-%04d", i%seeds)
		patch, _ := json.Marshal(map[string]any{
			"metadata": map[string]any{"resourceVersion": shoot.ResourceVersion},
			"spec":     map[string]any{"seedName": seed},
		})
		if _, err := b.graft.CoreV1alpha1().Shoots(shoot.Namespace).Patch(ctx, shoot.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			return err
		}
		now := metav1.Now()
		_, err := b.kube.CoreV1().Events(shoot.Namespace).Create(ctx, &corev1.Event{
			ObjectMeta: metav1.ObjectMeta{Namespace: shoot.Namespace, GenerateName: shoot.Name + "."},
			InvolvedObject: corev1.ObjectReference{
				Kind: "Shoot", APIVersion: v1alpha1.SchemeGroupVersion.String(), Namespace: shoot.Namespace, Name: shoot.Name,
				UID: shoot.UID, ResourceVersion: shoot.ResourceVersion,
			},
			Reason: scheduler.ReasonScheduled, Message: "Scheduled to seed " + seed, Type: corev1.EventTypeNormal,
			Source: corev1.EventSource{Component: "bench-baseline"}, FirstTimestamp: now, LastTimestamp: now, Count: 1,
		}, metav1.CreateOptions{})
		return err
	})
	return time.Since(start), err
}

// schedule runs graft-scheduler until every shoot is bound and its Scheduled
// Event written, watching the bindings to time each shoot from creation to
// binding. It returns the time to bind all shoots and the time until all
// events were written, both from the scheduler's start.
func (b *bench) schedule(ctx context.Context, restConfig *rest.Config, shoots []created) (_, _ time.Duration, _ []time.Duration, retErr error) {
	createdAt := make(map[string]time.Time, len(shoots))
	for _, c := range shoots {
		createdAt[c.shoot.Name] = c.at
	}
	obs, err := b.observe(ctx, "bench-scheduler")
	if err != nil {
		return 0, 0, nil, err
	}
	defer obs.stop()
	w, ew := obs.shoots, obs.events

	cfg := &configv1alpha1.SchedulerConfiguration{}
	cfg.LeaderElection.LeaderElect = ptr.To(false)
	cfg.Server.HealthProbeBindAddress = configv1alpha1.DisabledBindAddress
	cfg.Server.MetricsBindAddress = configv1alpha1.DisabledBindAddress
	cfg.ClientConnection.QPS, cfg.ClientConnection.Burst = 100000, 100000
	cfg.ConcurrentSyncs = int32(b.o.workers)
	cfg.Default()
	if errs := cfg.Validate(); len(errs) > 0 {
		return 0, 0, nil, errs.ToAggregate()
	}
	clients, err := clientconn.NewClients(clientconn.Apply(restConfig, cfg.ClientConnection), scheduler.Name)
	if err != nil {
		return 0, 0, nil, err
	}
	s, err := scheduler.New(cfg, clients, scheduler.Options{})
	if err != nil {
		return 0, 0, nil, err
	}
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	if b.o.cpuProfile != "" {
		f, err := os.Create(b.o.cpuProfile)
		if err != nil {
			return 0, 0, nil, err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return 0, 0, nil, err
		}
		defer pprof.StopCPUProfile()
	}
	start := time.Now()
	runErr := make(chan error, 1)
	go func() { runErr <- s.Run(runCtx) }()

	latencies := make([]time.Duration, 0, len(shoots))
	seen := map[string]bool{}
	written := map[string]bool{}
	var last, lastEvent time.Time
	for len(seen) < len(shoots) || len(written) < len(shoots) {
		select {
		case err := <-runErr:
			return 0, 0, nil, fmt.Errorf("the scheduler stopped early: %v", err)
		case ev, ok := <-ew.ResultChan():
			if !ok {
				return 0, 0, nil, fmt.Errorf("the event watch ended with %d of %d events", len(written), len(shoots))
			}
			if e, ok := ev.Object.(*corev1.Event); ok && ev.Type == watch.Added && e.Reason == scheduler.ReasonScheduled && !written[e.InvolvedObject.Name] {
				written[e.InvolvedObject.Name] = true
				lastEvent = time.Now()
			}
		case ev, ok := <-w.ResultChan():
			if !ok {
				return 0, 0, nil, fmt.Errorf("the watch ended with %d of %d shoots bound", len(seen), len(shoots))
			}
			if ev.Type != watch.Modified {
				continue
			}
			shoot, ok := ev.Object.(*v1alpha1.Shoot)
			if !ok || shoot.Spec.SeedName == nil || seen[shoot.Name] {
				continue
			}
			last = time.Now()
			seen[shoot.Name] = true
			latencies = append(latencies, last.Sub(createdAt[shoot.Name]))
		case <-time.After(2 * time.Minute):
			return 0, 0, nil, fmt.Errorf("nothing for 2 minutes; %d of %d shoots bound, %d events written", len(seen), len(shoots), len(written))
		}
	}
	stop()
	<-runErr
	return last.Sub(start), lastEvent.Sub(start), latencies, nil
}

// observer watches the shoots and Events of one namespace.
type observer struct {
	shoots, events watch.Interface
}

func (o *observer) stop() {
	o.shoots.Stop()
	o.events.Stop()
}

// observe starts watches on ns from the watch cache's current resourceVersion
// (asking for "now" can time out while the cache catches up with etcd).
func (b *bench) observe(ctx context.Context, ns string) (*observer, error) {
	list, err := b.graft.CoreV1alpha1().Shoots(ns).List(ctx, metav1.ListOptions{ResourceVersion: "0"})
	if err != nil {
		return nil, err
	}
	w, err := b.graft.CoreV1alpha1().Shoots(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		return nil, err
	}
	events, err := b.kube.CoreV1().Events(ns).List(ctx, metav1.ListOptions{ResourceVersion: "0"})
	if err != nil {
		w.Stop()
		return nil, err
	}
	ew, err := b.kube.CoreV1().Events(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: events.ResourceVersion})
	if err != nil {
		w.Stop()
		return nil, err
	}
	return &observer{shoots: w, events: ew}, nil
}

func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	i := int(float64(len(s))*p+0.5) - 1
	return s[max(0, min(i, len(s)-1))]
}

// parallel runs fn(0..n-1) on workers goroutines and returns the first error.
func parallel(n, workers int, fn func(i int) error) error {
	var next atomic.Int64
	var firstErr error
	var once sync.Once
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				if err := fn(i); err != nil {
					once.Do(func() { firstErr = err })
					next.Store(int64(n))
					return
				}
			}
		})
	}
	wg.Wait()
	return firstErr
}
