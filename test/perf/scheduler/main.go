package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"time"

	"github.com/graft-dev/graft/pkg/controlplane"
	"github.com/graft-dev/graft/pkg/coretest"
	"github.com/graft-dev/graft/pkg/garden"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	graftclient "github.com/graft-dev/client-go/clientset/versioned"
	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/component"
	"github.com/graft-dev/graft/pkg/scheduler"
	"github.com/graft-dev/graft/test/framework"
	"github.com/graft-dev/graft/test/perf/writes"
)

type options struct {
	seeds, shoots, workers int
	kubeconfig             string
	cpuProfile             string
	verbose                bool
	api                    garden.API
}

func main() {
	var o options
	flag.IntVar(&o.seeds, "seeds", 100, "number of seeds (N)")
	flag.IntVar(&o.shoots, "shoots", 5000, "number of pending shoots (M), for the scheduler and again for the baseline")
	flag.IntVar(&o.workers, "workers", 16, "concurrency: the scheduler's concurrentSyncs and the baseline's writers")
	flag.StringVar(&o.kubeconfig, "kubeconfig", "", "use this garden instead of starting a local control plane")
	flag.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the scheduler's run to this file")
	flag.BoolVar(&o.verbose, "verbose", false, "show the control plane's and the scheduler's logs")
	api := flag.String("api", string(garden.Graft), "the garden's API: core.graft.dev, or core.gardener.cloud through gardener-apiserver and shoots/binding")
	flag.Parse()
	var err error
	if o.api, err = garden.ParseAPI(*api); err != nil {
		fmt.Fprintf(os.Stderr, "bench-scheduler: %v\n", err)
		os.Exit(2)
	}
	if !o.verbose {
		klog.LogToStderr(false)
		klog.SetOutput(io.Discard)
	}
	if err := run(context.Background(), o); err != nil {
		fmt.Fprintf(os.Stderr, "bench-scheduler: %v\n", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, o options) error {
	var restConfig *rest.Config
	if o.kubeconfig != "" || o.api == garden.Gardener {
		if o.api == garden.Gardener && o.kubeconfig == "" {
			fmt.Println("starting the local control plane with gardener-apiserver")
		}
		env, err := framework.Start(ctx, framework.Options{UseKubeconfig: o.kubeconfig != "", Gardener: o.api == garden.Gardener})
		if err != nil {
			return err
		}
		defer env.Stop()
		restConfig = env.RESTConfig
	} else {
		fmt.Println("starting the local control plane")
		cpOpts := controlplane.ControlPlaneOptions{}
		if o.verbose {
			cpOpts.Log = os.Stderr
		}
		cp, err := controlplane.StartControlPlane(ctx, cpOpts)
		if err != nil {
			return err
		}
		defer cp.Stop()
		if err := controlplane.InstallCRDs(ctx, cp.RESTConfig); err != nil {
			return err
		}
		restConfig = cp.RESTConfig
	}
	restConfig = rest.CopyConfig(restConfig)
	// Neither side may be throttled by the client: the API server is measured.
	restConfig.QPS, restConfig.Burst = 100000, 100000
	graft := graftclient.NewForConfigOrDie(restConfig)
	kube := kubernetes.NewForConfigOrDie(restConfig)

	if o.api == garden.Gardener {
		nsCalibration, nsBaseline1, nsScheduler, nsBaseline2 = "garden-bcal", "garden-bbase1", "garden-bsched", "garden-bbase2"
	}
	b := &bench{o: o, graft: graft, kube: kube, restConfig: restConfig, profile: "bench", gardener: dynamic.NewForConfigOrDie(restConfig)}
	fmt.Printf("creating %d seeds\n", o.seeds)
	if err := b.setup(ctx); err != nil {
		return err
	}

	// The baseline runs half before and half after the measured run, so that
	// a machine whose load drifts biases neither side. The first half makes
	// the writes graft-scheduler made for as many shoots in an unmeasured
	// calibration run, with as many writers as it had writes in flight; the
	// second half makes what the measured run wrote beyond that, so that
	// both sides make the same writes in the end.
	firstHalf, secondHalf := o.shoots/2, o.shoots-o.shoots/2
	fmt.Printf("calibration: scheduling %d shoots, unmeasured\n", firstHalf)
	calShoots, err := b.createShoots(ctx, nsCalibration, "", firstHalf)
	if err != nil {
		return err
	}
	cal, _, _, err := b.schedule(ctx, nsCalibration, calShoots, "")
	if err != nil {
		return fmt.Errorf("calibration: %w", err)
	}
	fmt.Printf("calibration: graft-scheduler wrote %s\n", cal)
	writers := cal.Peak

	base1, baseFirst, err := b.runBaseline(ctx, nsBaseline1, firstHalf, cal.OK, writers)
	if err != nil {
		return err
	}

	fmt.Printf("scheduler: creating %d shoots\n", o.shoots)
	created, err := b.createShoots(ctx, nsScheduler, "", o.shoots)
	if err != nil {
		return err
	}
	fmt.Printf("scheduler: starting graft-scheduler with concurrentSyncs %d\n", o.workers)
	graftStats, bound, latencies, err := b.schedule(ctx, nsScheduler, created, o.cpuProfile)
	if err != nil {
		return err
	}
	elapsed := graftStats.LastAck.Sub(graftStats.Start)
	rate := float64(o.shoots) / elapsed.Seconds()
	fmt.Printf("scheduler: %d shoots bound after %v (%.1f shoots/s); their last write acknowledged after %v (%.1f shoots/s)\n",
		o.shoots, bound.Round(time.Millisecond), float64(o.shoots)/bound.Seconds(), elapsed.Round(time.Millisecond), rate)

	// The second half never has fewer writers than the scheduler had writes
	// in flight in the measured run.
	writers2 := max(writers, graftStats.Peak)
	base2, baseSecond, err := b.runBaseline(ctx, nsBaseline2, secondHalf, graftStats.OK.Minus(base1.OK), writers2)
	if err != nil {
		return err
	}
	baseRate := float64(o.shoots) / (baseFirst + baseSecond).Seconds()
	baseOK := base1.OK.Plus(base2.OK)
	fmt.Printf("seeds %d, shoots %d, concurrentSyncs %d\n", o.seeds, o.shoots, o.workers)
	fmt.Printf("creation to binding: p50 %v, p99 %v\n", writes.Percentile(latencies, 0.50).Round(time.Millisecond), writes.Percentile(latencies, 0.99).Round(time.Millisecond))
	fmt.Printf("graft-scheduler writes (Leases excluded): %s\n", graftStats)
	fmt.Printf("baseline writes (graft-scheduler's accepted ones): %s; %d writers in the first half (graft-scheduler's peak in the calibration run), %d in the second (its peak in either run); peak %d and mean %.1f writes in flight\n",
		baseOK, writers, writers2, max(base1.Peak, base2.Peak), meanOf(base1, baseFirst, base2, baseSecond))
	if d := baseOK.Diff(graftStats.OK); d != "" {
		fmt.Printf("the baseline's writes differ from graft-scheduler's: %s\n", d)
	}
	fmt.Printf("writes per binding: graft-scheduler %.2f, baseline %.2f\n", float64(graftStats.OK.Total())/float64(o.shoots), float64(baseOK.Total())/float64(o.shoots))
	fmt.Printf("%sscheduler %.1f shoots/s, baseline %.1f shoots/s, ratio %.2f\n", b.label(), rate, baseRate, rate/baseRate)
	return nil
}

// meanOf is the writes in flight on average over both halves of the baseline.
func meanOf(a writes.Stats, da time.Duration, b writes.Stats, db time.Duration) float64 {
	return (a.Mean*da.Seconds() + b.Mean*db.Seconds()) / (da + db).Seconds()
}

// The namespaces: each run has its own. On Gardener's API each is a
// project's, and named as Gardener requires (garden-<project>).
var (
	nsCalibration = "bench-calibration"
	nsBaseline1   = "bench-baseline-1"
	nsScheduler   = "bench-scheduler"
	nsBaseline2   = "bench-baseline-2"
)

type bench struct {
	o          options
	graft      graftclient.Interface
	kube       kubernetes.Interface
	gardener   dynamic.Interface
	restConfig *rest.Config
	profile    string
}

// label prefixes the result line on Gardener's API.
func (b *bench) label() string {
	if b.o.api == garden.Gardener {
		return "gardener: "
	}
	return ""
}

// regions spread the landscape so that decisions have work to do.
var regions = []string{"eu-west-1", "eu-central-1", "us-east-1", "us-west-2", "ap-south-1"}

// runBaseline creates n shoots in ns for the baseline and makes the given
// writes on them with the given number of writers.
func (b *bench) runBaseline(ctx context.Context, ns string, n int, counts writes.Counts, writers int) (writes.Stats, time.Duration, error) {
	fmt.Printf("baseline: creating %d shoots\n", n)
	list, err := b.createShoots(ctx, ns, writes.SchedulerName, n)
	if err != nil {
		return writes.Stats{}, 0, err
	}
	shoots := make([]*v1alpha1.Shoot, len(list))
	for i, c := range list {
		shoots[i] = c.shoot
	}
	plan, err := writes.Plan(counts, n)
	if err != nil {
		return writes.Stats{}, 0, err
	}
	counter := writes.NewCounter()
	clients, err := component.NewClients(counter.Wrap(b.restConfig), "bench-baseline")
	if err != nil {
		return writes.Stats{}, 0, err
	}
	// The same observer follows both sides, so the API server serves the
	// baseline the same watches as the scheduler.
	obs, err := b.observe(ctx, ns, nil)
	if err != nil {
		return writes.Stats{}, 0, err
	}
	defer obs.Stop()
	fmt.Printf("baseline: %s with %d writers\n", counts, writers)
	seeds := make([]string, b.o.seeds)
	for i := range seeds {
		seeds[i] = seedName(i)
	}
	bl := &writes.Baseline{Graft: clients.Graft, Kube: clients.Kubernetes, Seeds: seeds, Writers: writers, Counter: counter}
	if b.o.api == garden.Gardener {
		if bl.Gardener, err = garden.NewDynamic(clients.CustomResources); err != nil {
			return writes.Stats{}, 0, err
		}
	}
	elapsed, err := bl.Run(ctx, shoots, plan)
	if err != nil {
		return writes.Stats{}, 0, err
	}
	stats := counter.Stats()
	fmt.Printf("baseline: %d shoots in %v (%.1f shoots/s): %s\n", n, elapsed.Round(time.Millisecond), float64(n)/elapsed.Seconds(), stats)
	return stats, elapsed, nil
}

func seedName(i int) string { return fmt.Sprintf("seed-%04d", i) }

// observe follows ns on the bench's API.
func (b *bench) observe(ctx context.Context, ns string, done func(*v1alpha1.Shoot) bool, reasons ...string) (*writes.Observer, error) {
	if b.o.api == garden.Gardener {
		return writes.ObserveGardener(ctx, b.gardener, b.kube, ns, done, reasons...)
	}
	return writes.Observe(ctx, b.graft, b.kube, ns, done, reasons...)
}

func (b *bench) setup(ctx context.Context) error {
	if b.o.api == garden.Gardener {
		return b.setupGardener(ctx)
	}
	for _, ns := range []string{nsCalibration, nsBaseline1, nsScheduler, nsBaseline2} {
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
	return writes.Parallel(b.o.seeds, 16, func(i int) error {
		want := coretest.MakeSeed(seedName(i)).Label("tier", fmt.Sprint(i%3)).Region(regions[i%len(regions)]).Allocatable(allocatable).Obj()
		seed, err := b.graft.CoreV1alpha1().Seeds().Create(ctx, want, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		seed.Status = want.Status
		_, err = b.graft.CoreV1alpha1().Seeds().UpdateStatus(ctx, seed, metav1.UpdateOptions{})
		return err
	})
}

// created is a shoot as the create call returned it, with when it returned
// (creationTimestamp has whole seconds only).
type created struct {
	shoot *v1alpha1.Shoot
	at    time.Time
}

func (b *bench) createShoots(ctx context.Context, ns, schedulerName string, n int) ([]created, error) {
	if b.o.api == garden.Gardener {
		return b.createGardenerShoots(ctx, ns, schedulerName, n)
	}
	out := make([]created, n)
	err := writes.Parallel(n, 32, func(i int) error {
		shoot := coretest.MakeShoot(ns, fmt.Sprintf("shoot-%05d", i)).CloudProfileName(b.profile).Region(regions[i%len(regions)]).Obj()
		shoot.Spec.Provider.Workers = []v1alpha1.Worker{{Name: "pool", Zones: []string{"a"}}}
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

// schedule runs graft-scheduler on shoots (in ns) until each is bound and
// has its Scheduled Event, then stops it, which writes whatever it still
// holds. The clock runs from the scheduler's start to the acknowledgement of
// its last write. It returns the writes, the time until the last binding was
// seen, and each shoot's time from creation to binding as seen by a watch.
func (b *bench) schedule(ctx context.Context, ns string, shoots []created, cpuProfile string) (_ writes.Stats, bound time.Duration, _ []time.Duration, _ error) {
	obs, err := b.observe(ctx, ns, func(s *v1alpha1.Shoot) bool { return s.Spec.SeedName != nil }, scheduler.ReasonScheduled)
	if err != nil {
		return writes.Stats{}, 0, nil, err
	}
	defer obs.Stop()

	cfg := &configv1alpha1.SchedulerConfiguration{}
	cfg.LeaderElection.LeaderElect = ptr.To(false)
	cfg.Server.HealthProbeBindAddress = configv1alpha1.DisabledBindAddress
	cfg.Server.MetricsBindAddress = configv1alpha1.DisabledBindAddress
	cfg.ClientConnection.QPS, cfg.ClientConnection.Burst = 100000, 100000
	cfg.ConcurrentSyncs = int32(b.o.workers)
	if b.o.api == garden.Gardener {
		// Gardener's own scheduler takes shoots that name no scheduler.
		cfg.API, cfg.SchedulerName = configv1alpha1.APIGardener, gardenerSchedulerName
	}
	cfg.Default()
	if errs := cfg.Validate(); len(errs) > 0 {
		return writes.Stats{}, 0, nil, errs.ToAggregate()
	}
	// Every request of the scheduler, its Events included, goes through the counter.
	counter := writes.NewCounter()
	clients, err := component.NewClients(component.ApplyClientConnection(counter.Wrap(b.restConfig), cfg.ClientConnection), scheduler.Name)
	if err != nil {
		return writes.Stats{}, 0, nil, err
	}
	s, err := scheduler.New(cfg, clients, scheduler.Options{})
	if err != nil {
		return writes.Stats{}, 0, nil, err
	}
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	if cpuProfile != "" {
		f, err := os.Create(cpuProfile)
		if err != nil {
			return writes.Stats{}, 0, nil, err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return writes.Stats{}, 0, nil, err
		}
		defer pprof.StopCPUProfile()
	}
	counter.Reset()
	start := time.Now()
	runErr := make(chan error, 1)
	go func() { runErr <- s.Run(runCtx) }()
	waitErr := make(chan error, 1)
	missing := 0
	go func() {
		var err error
		missing, err = obs.Wait(runCtx, len(shoots), 2*time.Minute, 15*time.Second)
		waitErr <- err
	}()
	select {
	case err := <-runErr:
		return writes.Stats{}, 0, nil, fmt.Errorf("the scheduler stopped early: %v", err)
	case err := <-waitErr:
		if err != nil {
			return writes.Stats{}, 0, nil, err
		}
	}
	if missing > 0 {
		fmt.Printf("%s: %d bound shoots have no %s Event: graft-scheduler did not write them\n", ns, missing, scheduler.ReasonScheduled)
	}
	// Stopping writes the Events still queued; the counter sees their acknowledgements.
	stop()
	if err := <-runErr; err != nil {
		return writes.Stats{}, 0, nil, fmt.Errorf("stopping the scheduler: %w", err)
	}
	stats := counter.Stats()

	doneAt := obs.DoneAt()
	latencies := make([]time.Duration, 0, len(shoots))
	var last time.Time
	for _, c := range shoots {
		at := doneAt[c.shoot.Name]
		latencies = append(latencies, at.Sub(c.at))
		if at.After(last) {
			last = at
		}
	}
	return stats, last.Sub(start), latencies, nil
}
