package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	graftclient "github.com/graft-dev/client-go/clientset/versioned"
	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/controlplane"
	"github.com/graft-dev/graft/pkg/coretest"
	"github.com/graft-dev/graft/test/perf/daemon"
	"github.com/graft-dev/graft/test/perf/writes"
)

type options struct {
	seeds, backlog int
	rate           float64
	duration       time.Duration
	beforeBinDir   string
	seed           uint64
	flood          float64
}

func main() {
	var o options
	flag.IntVar(&o.seeds, "seeds", 2000, "number of seeds")
	flag.IntVar(&o.backlog, "backlog", 1000, "shoots no seed fits: 40% in a full region, 30% where every seed has an untolerated taint, 30% of a provider without seeds")
	flag.Float64Var(&o.rate, "rate", 10, "churn events per second: creations and deletions of schedulable shoots, alternating")
	flag.DurationVar(&o.duration, "duration", 2*time.Minute, "length of each churn phase")
	flag.StringVar(&o.beforeBinDir, "before", "", "a directory with graft-scheduler and graft-descheduler binaries of another build (an earlier release): measured first, on its own control plane")
	flag.Uint64Var(&o.seed, "rand", 1, "seed of the churn's random choices")
	flag.Float64Var(&o.flood, "flood", 50, "a third phase: one tenant's writes per second (updates of its waiting shoots, and new shoots with the largest seed selectors the limits allow) during the churn; 0 skips it")
	flag.Parse()
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)
	if err := run(context.Background(), o); err != nil {
		fmt.Fprintf(os.Stderr, "bench-backlog: %v\n", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, o options) error {
	dir, err := os.MkdirTemp("", "graft-bench-backlog-")
	if err != nil {
		return err
	}
	binDir := filepath.Join(dir, "bin")
	fmt.Println("building graft-scheduler and graft-descheduler")
	if _, err := controlplane.BuildBinaries(ctx, binDir, "graft-scheduler", "graft-descheduler"); err != nil {
		return err
	}
	type variant struct {
		name, binDir string
		old          bool
	}
	variants := []variant{{name: "this build", binDir: binDir}}
	if o.beforeBinDir != "" {
		variants = append([]variant{{name: "before (" + o.beforeBinDir + ")", binDir: o.beforeBinDir, old: true}}, variants...)
	}
	var results [][4]phase
	for _, v := range variants {
		fmt.Printf("\n== %s\n", v.name)
		r, err := measure(ctx, o, dir, v.binDir, v.old)
		if err != nil {
			fmt.Printf("logs kept in %s\n", dir)
			return fmt.Errorf("%s: %w", v.name, err)
		}
		results = append(results, r)
	}
	fmt.Printf("\nseeds %d, backlog %d, churn %.0f events/s for %v per phase\n", o.seeds, o.backlog, o.rate, o.duration)
	fmt.Println(header)
	for i, v := range variants {
		for _, p := range results[i] {
			if p.name != "" {
				fmt.Println(p.row(v.name))
			}
		}
	}
	last := results[len(results)-1]
	empty, full := last[0], last[1]
	if o.flood > 0 {
		for i, v := range variants {
			quiet, control, flood := writes.Percentile(results[i][0].latencies, 0.99), writes.Percentile(results[i][2].latencies, 0.99),
				writes.Percentile(results[i][3].latencies, 0.99)
			fmt.Printf("%s: another tenant's binding p99 %v under the flood vs %v quiet, ratio %.2f (<= 2: %s); "+
				"%v under the same flood of shoots graft does not schedule (the API server's share), ratio %.2f\n", v.name,
				flood.Round(time.Millisecond), quiet.Round(time.Millisecond), float64(flood)/float64(quiet), verdict(flood <= 2*quiet),
				control.Round(time.Millisecond), float64(flood)/float64(control))
		}
	}
	fmt.Printf("targets (this build): failed decisions per churn event %.3f (< 1: %s); status writes for unchanged failures %d (0: %s); "+
		"churn throughput %.2f/s vs %.2f/s with an empty backlog, ratio %.3f (>= 0.9: %s)\n",
		full.perEvent(full.failed), verdict(full.perEvent(full.failed) < 1), full.statusWrites, verdict(full.statusWrites == 0),
		full.throughput(), empty.throughput(), full.throughput()/empty.throughput(), verdict(full.throughput() >= 0.9*empty.throughput()))
	if len(results) == 2 {
		before := results[0][1]
		fmt.Printf("with the backlog, this build against the other: failed decisions %d vs %d, status writes %d vs %d, scheduler Events %d vs %d, scheduler CPU %.1fs vs %.1fs\n",
			full.failed, before.failed, full.statusWrites, before.statusWrites, full.schedEvents, before.schedEvents, full.cpu.Seconds(), before.cpu.Seconds())
	}
	os.RemoveAll(dir)
	return nil
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "MISSED"
}

// The landscape's namespaces and regions.
const (
	nsChurn   = "churn"
	nsBacklog = "backlog"
	nsFill    = "fill"

	regionFull    = "eu-full-1"
	regionTainted = "eu-tainted-1"
	regionStuck   = "eu-stuck-1"
)

// churnRegions hold the seeds with room, where the churn goes.
var churnRegions = []string{"eu-west-1", "eu-central-1", "us-east-1", "us-west-2"}

// fullSeeds, taintedSeeds and stuckShoots size the seeds the backlog and the
// descheduler's held evictions need; the rest of the seeds take the churn.
const (
	fullSeeds    = 20
	fullPerSeed  = 2
	taintedSeeds = 19
	stuckShoots  = 10
)

// phase is what one churn phase measured.
type phase struct {
	name                     string
	created, deleted, bound  int
	elapsed                  time.Duration
	failed, statusWrites     int
	schedEvents, deschEvents int
	cpu                      time.Duration
	// busy is the share of the machine's CPU time spent busy, every
	// process included (the control plane's, the benchmark's).
	busy      float64
	latencies []time.Duration
}

func (p phase) events() int { return p.created + p.deleted + p.bound }

func (p phase) perEvent(n int) float64 { return float64(n) / float64(max(1, p.events())) }

func (p phase) throughput() float64 { return float64(p.bound) / p.elapsed.Seconds() }

const header = "build | phase | churn events | failed decisions (per event) | status writes (per event) | scheduler Event writes, Scheduled included (per event) | descheduler Event writes | scheduler CPU | machine CPU busy | bindings/s | binding p50 | p99"

func (p phase) row(build string) string {
	return fmt.Sprintf("%s | %s | %d | %d (%.3f) | %d (%.3f) | %d (%.3f) | %d | %.1fs | %.0f%% | %.2f | %v | %v", build, p.name, p.events(),
		p.failed, p.perEvent(p.failed), p.statusWrites, p.perEvent(p.statusWrites), p.schedEvents, p.perEvent(p.schedEvents), p.deschEvents,
		p.cpu.Seconds(), 100*p.busy, p.throughput(), writes.Percentile(p.latencies, 0.5).Round(time.Millisecond), writes.Percentile(p.latencies, 0.99).Round(time.Millisecond))
}

type bench struct {
	o      options
	cp     *controlplane.ControlPlane
	graft  graftclient.Interface
	kube   kubernetes.Interface
	sched  *daemon.Daemon
	desch  *daemon.Daemon
	rand   *rand.Rand
	livePs []string // churn shoots created and not yet deleted, oldest first
	next   int
}

// measure runs both phases on a fresh control plane with the binaries of binDir.
func measure(ctx context.Context, o options, dir, binDir string, old bool) (_ [4]phase, err error) {
	b := &bench{o: o, rand: rand.New(rand.NewPCG(o.seed, 0))}
	fmt.Println("starting the local control plane")
	if b.cp, err = controlplane.StartControlPlane(ctx, controlplane.ControlPlaneOptions{}); err != nil {
		return [4]phase{}, err
	}
	defer b.cp.Stop()
	if err := controlplane.InstallCRDs(ctx, b.cp.RESTConfig); err != nil {
		return [4]phase{}, err
	}
	cfg := rest.CopyConfig(b.cp.RESTConfig)
	cfg.QPS, cfg.Burst = 1000, 1000
	b.graft, b.kube = graftclient.NewForConfigOrDie(cfg), kubernetes.NewForConfigOrDie(cfg)
	if err := b.landscape(ctx); err != nil {
		return [4]phase{}, err
	}

	var set []string
	if old {
		// A build without the field refuses a configuration that has it.
		set = append(set, "config.unschedulableRetryInterval=null")
	}
	if b.sched, err = daemon.Start(ctx, b.cp.RESTConfig, binDir, dir, "graft-scheduler", set, nil); err != nil {
		return [4]phase{}, err
	}
	defer b.sched.Stop()
	if b.desch, err = daemon.Start(ctx, b.cp.RESTConfig, binDir, dir, "graft-descheduler", []string{"config.interval=10s"}, nil); err != nil {
		return [4]phase{}, err
	}
	defer b.desch.Stop()
	for _, d := range []*daemon.Daemon{b.sched, b.desch} {
		if _, err := d.WaitLeading(ctx, b.kube); err != nil {
			return [4]phase{}, d.Failed(err)
		}
	}
	if err := b.waitQuiet(ctx, 0); err != nil {
		return [4]phase{}, err
	}

	// The churn deletes the oldest of a standing population, so that a
	// shoot lives long enough to be bound however slow the scheduler is.
	fmt.Printf("creating the churn's standing population: %d shoots\n", standing)
	if err := b.populate(ctx); err != nil {
		return [4]phase{}, err
	}

	var out [4]phase
	fmt.Printf("churn with an empty backlog for %v\n", o.duration)
	if out[0], err = b.churn(ctx, "empty backlog"); err != nil {
		return out, err
	}
	fmt.Printf("creating the backlog: %d shoots no seed fits\n", o.backlog)
	if err := b.createBacklog(ctx); err != nil {
		return out, err
	}
	if err := b.waitQuiet(ctx, o.backlog); err != nil {
		return out, err
	}
	fmt.Printf("churn with the backlog for %v\n", o.duration)
	if out[1], err = b.churn(ctx, fmt.Sprintf("%d in backlog", o.backlog)); err != nil {
		return out, err
	}
	if o.flood <= 0 {
		return out, nil
	}
	// The control: the same writes, of shoots another scheduler owns, cost
	// the API server what the flood costs it and graft nothing.
	for i, hostile := range []struct{ ns, scheduler, name string }{
		{nsControl, "another-scheduler", "flood graft does not schedule"},
		{nsHostile, "", "flood"},
	} {
		fmt.Printf("churn with the backlog and a hostile tenant's %s (%.0f writes/s) for %v\n", hostile.name, o.flood, o.duration)
		fctx, stopFlood := context.WithCancel(ctx)
		flooded := make(chan floodCount, 1)
		go func() { flooded <- b.flood(fctx, hostile.ns, hostile.scheduler) }()
		out[2+i], err = b.churn(ctx, fmt.Sprintf("%d in backlog, %s", o.backlog, hostile.name))
		stopFlood()
		f := <-flooded
		fmt.Printf("  the flood: %d label and annotation patches, %d spec patches, %d new shoots with the largest selectors, %d refused\n",
			f.metadata, f.spec, f.created, f.errors)
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// floodCount is what the hostile tenant wrote.
type floodCount struct{ metadata, spec, created, errors int }

// nsHostile is the flooding tenant's namespace, nsControl the namespace of
// the same flood of shoots graft does not schedule.
const (
	nsHostile = "hostile"
	nsControl = "hostile-control"
)

// largestSelector is the largest seed selector the Shoot CRD admits,
// matching no seed: 32 labels and 32 expressions of 64 values each.
func largestSelector(n int) *v1alpha1.SeedSelector {
	sel := &v1alpha1.SeedSelector{LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{}}}
	for i := range 32 {
		sel.MatchLabels[fmt.Sprintf("hostile.example.com/key-%02d", i)] = fmt.Sprintf("v%d", n)
		values := make([]string, 64)
		for j := range values {
			values[j] = fmt.Sprintf("value-%02d-%02d", i, j)
		}
		sel.MatchExpressions = append(sel.MatchExpressions, metav1.LabelSelectorRequirement{
			Key: fmt.Sprintf("hostile.example.com/other-%02d", i), Operator: metav1.LabelSelectorOpNotIn, Values: values,
		})
	}
	return sel
}

// flood writes as a hostile tenant at the flood rate until ctx ends: of
// every ten writes, four patch a label and an annotation of one of its
// waiting shoots, four patch its spec (a toleration), two create a shoot
// with the largest selector (the first hundred writes create its shoots).
func (b *bench) flood(ctx context.Context, ns, scheduler string) floodCount {
	var c floodCount
	if _, err := b.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		c.errors++
	}
	shoots := b.graft.CoreV1alpha1().Shoots(ns)
	tick := time.NewTicker(time.Duration(float64(time.Second) / b.o.flood))
	defer tick.Stop()
	var names []string
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			return c
		case <-tick.C:
		}
		var err error
		switch {
		case len(names) < 100 || i%10 >= 8:
			name := fmt.Sprintf("hostile-%05d", len(names))
			shoot := coretest.MakeShoot(ns, name).CloudProfileName("aws").Region(churnRegions[0]).Obj()
			shoot.Spec.SeedSelector = largestSelector(len(names))
			if scheduler != "" {
				shoot.Spec.SchedulerName = &scheduler
			}
			if _, err = shoots.Create(ctx, shoot, metav1.CreateOptions{}); err == nil {
				names = append(names, name)
				c.created++
			}
		case i%10 < 4:
			patch := fmt.Sprintf(`{"metadata":{"labels":{"flood":"%d"},"annotations":{"flood":"%d"}}}`, i, i)
			if _, err = shoots.Patch(ctx, names[b.rand.IntN(len(names))], types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err == nil {
				c.metadata++
			}
		default:
			patch := fmt.Sprintf(`{"spec":{"tolerations":[{"key":"flood-%d"}]}}`, i)
			if _, err = shoots.Patch(ctx, names[b.rand.IntN(len(names))], types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err == nil {
				c.spec++
			}
		}
		if err != nil && ctx.Err() == nil {
			c.errors++
		}
	}
}

// landscape creates the seeds (most with room in the churn regions; a full
// region; a region whose every seed is tainted; one seed with a NoExecute
// taint whose shoots fit nowhere else) and the shoots that fill them.
func (b *bench) landscape(ctx context.Context) error {
	for _, ns := range []string{nsChurn, nsBacklog, nsFill, v1alpha1.GardenNamespace, daemon.ComponentNamespace} {
		if _, err := b.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	for _, p := range []string{"aws", "azure"} {
		profile := coretest.MakeCloudProfile(p).Obj()
		profile.Spec.Type = p
		if _, err := b.graft.CoreV1alpha1().CloudProfiles().Create(ctx, profile, metav1.CreateOptions{}); err != nil {
			return err
		}
	}
	churnSeeds := b.o.seeds - fullSeeds - taintedSeeds - 1
	if churnSeeds < len(churnRegions) {
		return fmt.Errorf("%d seeds are too few: %d are the backlog's", b.o.seeds, fullSeeds+taintedSeeds+1)
	}
	fmt.Printf("creating %d seeds\n", b.o.seeds)
	err := writes.Parallel(b.o.seeds, 32, func(i int) error {
		var w *coretest.SeedWrapper
		switch {
		case i < churnSeeds:
			w = coretest.MakeSeed(fmt.Sprintf("seed-%04d", i)).Region(churnRegions[i%len(churnRegions)]).Allocatable(1000)
		case i < churnSeeds+fullSeeds:
			w = coretest.MakeSeed(fmt.Sprintf("full-%02d", i-churnSeeds)).Region(regionFull).Allocatable(fullPerSeed)
		case i < churnSeeds+fullSeeds+taintedSeeds:
			w = coretest.MakeSeed(fmt.Sprintf("tainted-%02d", i-churnSeeds-fullSeeds)).Region(regionTainted).Allocatable(1000).
				Taint("maintenance", nil, v1alpha1.TaintEffectNoSchedule)
		default:
			w = coretest.MakeSeed("stuck").Region(regionStuck).Allocatable(1000).Taint("decommission", nil, v1alpha1.TaintEffectNoExecute)
		}
		want := w.Obj()
		seed, err := b.graft.CoreV1alpha1().Seeds().Create(ctx, want, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		seed.Status = want.Status
		_, err = b.graft.CoreV1alpha1().Seeds().UpdateStatus(ctx, seed, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		return err
	}
	var fill []*v1alpha1.Shoot
	for i := range fullSeeds * fullPerSeed {
		fill = append(fill, coretest.MakeShoot(nsFill, fmt.Sprintf("fill-%03d", i)).CloudProfileName("aws").Region(regionFull).
			Seed(fmt.Sprintf("full-%02d", i/fullPerSeed)).Obj())
	}
	for i := range stuckShoots {
		fill = append(fill, coretest.MakeShoot(nsFill, fmt.Sprintf("stuck-%02d", i)).CloudProfileName("aws").Region(regionStuck).Seed("stuck").Obj())
	}
	return writes.Parallel(len(fill), 16, func(i int) error {
		_, err := b.graft.CoreV1alpha1().Shoots(nsFill).Create(ctx, fill[i], metav1.CreateOptions{})
		return err
	})
}

// standing is the number of churn shoots alive when a phase starts.
const standing = 200

// populate creates the standing churn shoots and waits until they are bound.
func (b *bench) populate(ctx context.Context) error {
	names := make([]string, standing)
	for i := range names {
		names[i] = fmt.Sprintf("churn-%06d", b.next)
		b.next++
	}
	b.livePs = append(b.livePs, names...)
	if err := writes.Parallel(standing, 16, func(i int) error {
		shoot := coretest.MakeShoot(nsChurn, names[i]).CloudProfileName("aws").Region(churnRegions[i%len(churnRegions)]).Obj()
		_, err := b.graft.CoreV1alpha1().Shoots(nsChurn).Create(ctx, shoot, metav1.CreateOptions{})
		return err
	}); err != nil {
		return err
	}
	var bound int
	if err := wait.PollUntilContextTimeout(ctx, time.Second, 5*time.Minute, true, func(ctx context.Context) (bool, error) {
		var err error
		bound, err = b.countShoots(ctx, nsChurn, func(s *v1alpha1.Shoot) bool { return s.Spec.SeedName != nil })
		return bound == standing, err
	}); err != nil {
		return b.sched.Failed(fmt.Errorf("%d of the %d standing churn shoots bound: %w", bound, standing, err))
	}
	return nil
}

// countShoots counts the shoots of ns that match.
func (b *bench) countShoots(ctx context.Context, ns string, match func(*v1alpha1.Shoot) bool) (int, error) {
	list, err := b.graft.CoreV1alpha1().Shoots(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return 0, err
	}
	n := 0
	for i := range list.Items {
		if match(&list.Items[i]) {
			n++
		}
	}
	return n, nil
}

func (b *bench) createBacklog(ctx context.Context) error {
	return writes.Parallel(b.o.backlog, 16, func(i int) error {
		s := coretest.MakeShoot(nsBacklog, fmt.Sprintf("waiting-%04d", i))
		switch {
		case i < b.o.backlog*4/10:
			s.CloudProfileName("aws").Region(regionFull)
		case i < b.o.backlog*7/10:
			s.CloudProfileName("aws").Region(regionTainted)
		default:
			s.CloudProfileName("azure").Provider("azure", churnRegions[0])
		}
		_, err := b.graft.CoreV1alpha1().Shoots(nsBacklog).Create(ctx, s.Obj(), metav1.CreateOptions{})
		return err
	})
}

// waitQuiet waits until the backlog's n shoots all carry the scheduler's
// Pending lastOperation and its queue is empty: every waiting shoot has
// been decided at least once.
func (b *bench) waitQuiet(ctx context.Context, n int) error {
	var pending int
	var depth []float64
	if err := wait.PollUntilContextTimeout(ctx, time.Second, 5*time.Minute, true, func(ctx context.Context) (bool, error) {
		var err error
		if pending, err = b.countShoots(ctx, nsBacklog, func(s *v1alpha1.Shoot) bool {
			lo := s.Status.LastOperation
			return lo != nil && lo.State == v1alpha1.LastOperationStatePending
		}); err != nil {
			return false, err
		}
		depth, err = b.sched.Samples(ctx, `workqueue_depth{name="graft_scheduler"}`)
		return err == nil && pending == n && depth[0] == 0, err
	}); err != nil {
		return b.sched.Failed(fmt.Errorf("%d of %d backlog shoots decided, queue depth %v: %w", pending, n, depth, err))
	}
	return nil
}

// counters are the cumulative figures a phase takes the difference of.
type counters struct {
	failed            float64
	auditOffset       int64
	schedCPU          time.Duration
	busy, total       time.Duration
	statusW, sEv, dEv int
}

func (b *bench) counters(ctx context.Context, offset int64) (counters, error) {
	var c counters
	v, err := b.sched.Samples(ctx, `graft_scheduler_schedule_attempts_total{result="unschedulable"}`)
	if err != nil {
		return c, err
	}
	c.failed = v[0]
	if c.schedCPU, err = daemon.ReadCPU(b.sched.Proc.Pid()); err != nil {
		return c, err
	}
	if c.busy, c.total, err = daemon.ReadMachineCPU(); err != nil {
		return c, err
	}
	if offset < 0 {
		c.auditOffset, err = daemon.AuditSize(b.cp.AuditLog)
		return c, err
	}
	sched, _, _, err := daemon.AuditWrites(b.cp.AuditLog, offset, user("graft-scheduler"))
	if err != nil {
		return c, err
	}
	desch, _, _, err := daemon.AuditWrites(b.cp.AuditLog, offset, user("graft-descheduler"))
	if err != nil {
		return c, err
	}
	c.statusW = sched["patch shoots/status"]
	c.sEv = sched["create events"] + sched["patch events"]
	c.dEv = desch["create events"] + desch["patch events"]
	return c, nil
}

func user(chart string) string {
	return "system:serviceaccount:" + daemon.ComponentNamespace + ":" + chart
}

// churn creates schedulable shoots and deletes the oldest of the standing
// population, alternating, at the fixed rate for the phase's duration (each
// phase creates as many), then waits for the last ones to be bound.
func (b *bench) churn(ctx context.Context, name string) (phase, error) {
	p := phase{name: name}
	obs, err := writes.Observe(ctx, b.graft, b.kube, nsChurn, func(s *v1alpha1.Shoot) bool { return s.Spec.SeedName != nil })
	if err != nil {
		return p, err
	}
	defer obs.Stop()
	before, err := b.counters(ctx, -1)
	if err != nil {
		return p, err
	}
	createdAt := map[string]time.Time{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	var errs []error
	tick := time.NewTicker(time.Duration(float64(time.Second) / b.o.rate))
	defer tick.Stop()
	start := time.Now()
	for i := 0; time.Since(start) < b.o.duration; i++ {
		<-tick.C
		create := i%2 == 0
		var target string
		if create {
			target = fmt.Sprintf("churn-%06d", b.next)
			b.next++
			b.livePs = append(b.livePs, target)
		} else {
			target, b.livePs = b.livePs[0], b.livePs[1:]
		}
		region := churnRegions[b.rand.IntN(len(churnRegions))]
		wg.Go(func() {
			var err error
			if create {
				shoot := coretest.MakeShoot(nsChurn, target).CloudProfileName("aws").Region(region).Obj()
				_, err = b.graft.CoreV1alpha1().Shoots(nsChurn).Create(ctx, shoot, metav1.CreateOptions{})
			} else {
				err = b.graft.CoreV1alpha1().Shoots(nsChurn).Delete(ctx, target, metav1.DeleteOptions{})
			}
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err != nil:
				errs = append(errs, err)
			case create:
				p.created++
				createdAt[target] = time.Now()
			default:
				p.deleted++
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return p, err
	}
	// Every shoot created in the phase is bound (a deleted one may be gone first).
	missing := 0
	if err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 2*time.Minute, true, func(context.Context) (bool, error) {
		done := obs.DoneAt()
		missing = 0
		for n := range createdAt {
			if _, ok := done[n]; !ok && slices.Contains(b.livePs, n) {
				missing++
			}
		}
		return missing == 0, nil
	}); err != nil {
		return p, b.sched.Failed(fmt.Errorf("%s: %d churn shoots still unbound after the churn: %w", name, missing, err))
	}
	var last time.Time
	for n, at := range obs.DoneAt() {
		c, ok := createdAt[n]
		if !ok {
			continue
		}
		p.bound++
		p.latencies = append(p.latencies, at.Sub(c))
		if at.After(last) {
			last = at
		}
	}
	p.elapsed = last.Sub(start)
	after, err := b.counters(ctx, before.auditOffset)
	if err != nil {
		return p, err
	}
	p.failed = int(after.failed - before.failed)
	p.statusWrites, p.schedEvents, p.deschEvents = after.statusW, after.sEv, after.dEv
	p.cpu = after.schedCPU - before.schedCPU
	p.busy = float64(after.busy-before.busy) / float64(max(1, after.total-before.total))
	fmt.Println(p.row("  "))
	return p, nil
}
