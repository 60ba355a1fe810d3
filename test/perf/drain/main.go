package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/component"
	"github.com/graft-dev/graft/pkg/descheduler"
	"github.com/graft-dev/graft/pkg/scheduler"
	"github.com/graft-dev/graft/test/framework"
	"github.com/graft-dev/graft/test/integration/descheduler/fixture"
	"github.com/graft-dev/graft/test/perf/writes"
)

var (
	shoots      = flag.Int("shoots", 1000, "shoots on the drained seed")
	targets     = flag.Int("targets", 4, "seeds the shoots may move to")
	concurrency = flag.Int("concurrency", 16, "the descheduler's concurrentEvictions and the scheduler's concurrentSyncs")
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
	cfg := env.Config()
	// Neither side may be throttled by the client: the API server is measured.
	cfg.QPS, cfg.Burst = 100000, 100000

	// The baseline runs half before and half after the measured drain, so
	// that a machine whose load drifts biases neither side. The first half
	// makes the writes graft made when it drained a seed of as many shoots in
	// an unmeasured calibration run, with as many writers as graft had
	// writes in flight; the second half makes what the measured drain wrote
	// beyond that, so that both sides make the same writes in the end.
	firstHalf, secondHalf := *shoots/2, *shoots-*shoots/2
	calL, err := landscape(ctx, cfg, "cal", firstHalf, false)
	if err != nil {
		return err
	}
	base1L, err := landscape(ctx, cfg, "base1", firstHalf, true)
	if err != nil {
		return err
	}
	drainL, err := landscape(ctx, cfg, "drain", *shoots, false)
	if err != nil {
		return err
	}
	base2L, err := landscape(ctx, cfg, "base2", secondHalf, true)
	if err != nil {
		return err
	}

	fmt.Printf("calibration: draining a seed of %d shoots, unmeasured\n", firstHalf)
	cal, _, err := measureDrain(ctx, cfg, calL)
	if err != nil {
		return fmt.Errorf("calibration: %w", err)
	}
	fmt.Printf("calibration: graft wrote %s\n", cal)
	writers := cal.Peak

	base1, baseFirst, err := measureBaseline(ctx, cfg, base1L, cal.OK, writers)
	if err != nil {
		return err
	}
	graft, elapsed, err := measureDrain(ctx, cfg, drainL)
	if err != nil {
		return err
	}
	rate := float64(*shoots) / elapsed.Seconds()
	// The second half never has fewer writers than graft had writes in
	// flight in the measured run.
	writers2 := max(writers, graft.Peak)
	base2, baseSecond, err := measureBaseline(ctx, cfg, base2L, graft.OK.Minus(base1.OK), writers2)
	if err != nil {
		return err
	}
	baseRate := float64(*shoots) / (baseFirst + baseSecond).Seconds()
	baseOK := base1.OK.Plus(base2.OK)
	mean := (base1.Mean*baseFirst.Seconds() + base2.Mean*baseSecond.Seconds()) / (baseFirst + baseSecond).Seconds()

	fmt.Printf("shoots %d, targets %d, concurrentEvictions %d, concurrentSyncs %d\n", *shoots, *targets, *concurrency, *concurrency)
	fmt.Printf("graft writes (descheduler and scheduler, Leases excluded), %.2f per moved shoot: %s\n",
		float64(graft.OK.Total()+graft.Failed.Total())/float64(*shoots), graft)
	fmt.Printf("baseline writes (graft's accepted ones): %s; %d writers in the first half (graft's peak in the calibration run), %d in the second (graft's peak in either run); peak %d and mean %.1f writes in flight\n",
		baseOK, writers, writers2, max(base1.Peak, base2.Peak), mean)
	if d := baseOK.Diff(graft.OK); d != "" {
		fmt.Printf("the baseline's writes differ from graft's: %s\n", d)
	}
	fmt.Printf("drain %.1f shoots/s, baseline %.1f shoots/s, ratio %.2f\n", rate, baseRate, rate/baseRate)
	return nil
}

// landscape creates a seed "src" holding n shoots and the target seeds. The
// baseline's shoots name a scheduler of their own, so that graft-scheduler
// leaves them alone.
func landscape(ctx context.Context, cfg *rest.Config, name string, n int, baseline bool) (*fixture.Landscape, error) {
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
	list := make([]*v1alpha1.Shoot, 0, n)
	for i := range n {
		s := l.NewShoot(fmt.Sprintf("s-%04d", i), "src")
		if baseline {
			s.Spec.SchedulerName = ptr.To(writes.SchedulerName)
		}
		list = append(list, s)
	}
	start := time.Now()
	if err := l.CreateShoots(ctx, list, 32); err != nil {
		return nil, err
	}
	fmt.Printf("%s: created %d shoots on seed %s in %v\n", name, n, l.SeedName("src"), time.Since(start).Round(time.Millisecond))
	return l, nil
}

// measureDrain taints the landscape's source seed with graft-descheduler and
// graft-scheduler running in-process and waits until every shoot is bound to
// another seed and has its Descheduled and Scheduled Events; then it stops
// both, which writes whatever they still hold. The clock runs from the taint
// to the acknowledgement of the components' last write.
func measureDrain(ctx context.Context, cfg *rest.Config, l *fixture.Landscape) (writes.Stats, time.Duration, error) {
	// Every request of both components, their Events included, goes through the counter.
	counter := writes.NewCounter()
	componentCfg := counter.Wrap(cfg)
	sched, err := fixture.StartScheduler(ctx, componentCfg, "bench-scheduler-"+l.Name, func(c *configv1alpha1.SchedulerConfiguration) {
		c.ConcurrentSyncs = int32(*concurrency)
		c.ClientConnection.QPS, c.ClientConnection.Burst = 100000, 100000
	})
	if err != nil {
		return writes.Stats{}, 0, err
	}
	defer sched.Stop()
	identity := "bench-" + l.Name
	dcfg, err := fixture.DeschedulerConfig("bench-descheduler-"+l.Name, func(c *configv1alpha1.DeschedulerConfiguration) {
		c.EvictionRate = ptr.To(0.0)
		c.MaxPendingEvicted = ptr.To[int32](int32(*shoots))
		c.MaxEvictionsPerSeed = ptr.To[int32](0)
		c.MaxEvictionsTotal = ptr.To[int32](0)
		c.ConcurrentEvictions = int32(*concurrency)
		c.ClientConnection.QPS, c.ClientConnection.Burst = 100000, 100000
		// The lease timings a deployment has: the tests' short ones make a
		// loaded machine lose the lease, and every late renewal closes the
		// write fence until the informers have caught up.
		c.LeaderElection.LeaseDuration = metav1.Duration{}
		c.LeaderElection.RenewDeadline = metav1.Duration{}
		c.LeaderElection.RetryPeriod = metav1.Duration{}
	})
	if err != nil {
		return writes.Stats{}, 0, err
	}
	desched := fixture.StartDescheduler(ctx, componentCfg, dcfg, identity)
	defer desched.Stop()
	// Start when the descheduler leads and may write: the catch-up after
	// taking the lease is start-up, which a drain of a running garden does
	// not wait for.
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 2*time.Minute, true, func(context.Context) (bool, error) {
		if ended, err := desched.Ended(); ended {
			return false, fmt.Errorf("the descheduler stopped: %v", err)
		}
		return desched.Writing(), nil
	})
	if err != nil {
		return writes.Stats{}, 0, fmt.Errorf("waiting for the descheduler to lead with its write fence open: %w", err)
	}

	src := l.SeedName("src")
	obs, err := writes.Observe(ctx, l.Graft, l.Kube, l.Name, func(s *v1alpha1.Shoot) bool {
		seed := fixture.Of(s)
		return seed != "" && seed != src
	}, descheduler.EventDescheduled, scheduler.ReasonScheduled)
	if err != nil {
		return writes.Stats{}, 0, err
	}
	defer obs.Stop()
	n := len(obs.DoneAt())
	if n != 0 {
		return writes.Stats{}, 0, fmt.Errorf("%d shoots of %s are not on seed %s before the drain", n, l.Name, src)
	}

	counter.Reset()
	start := time.Now()
	if err := l.SetTaints(ctx, "src", v1alpha1.SeedTaint{Key: v1alpha1.SeedTaintUnschedulable, Effect: v1alpha1.TaintEffectNoExecute}); err != nil {
		return writes.Stats{}, 0, err
	}
	total, err := countShoots(ctx, l)
	if err != nil {
		return writes.Stats{}, 0, err
	}
	missing, err := obs.Wait(ctx, total, 2*time.Minute, 15*time.Second)
	if err != nil {
		return writes.Stats{}, 0, fmt.Errorf("drain of %s: %w", src, err)
	}
	if missing > 0 {
		fmt.Printf("%s: %d moved shoots lack a %s or %s Event: graft did not write them\n",
			l.Name, missing, descheduler.EventDescheduled, scheduler.ReasonScheduled)
	}
	// Stopping writes the Events still queued; the counter sees their acknowledgements.
	if err := desched.Stop(); err != nil {
		return writes.Stats{}, 0, fmt.Errorf("stopping the descheduler: %w", err)
	}
	if err := sched.Stop(); err != nil {
		return writes.Stats{}, 0, fmt.Errorf("stopping the scheduler: %w", err)
	}
	stats := counter.Stats()
	elapsed := stats.LastAck.Sub(start)
	fmt.Printf("%s: %d shoots moved off %s; their last write acknowledged after %v (%.1f shoots/s)\n",
		l.Name, total, src, elapsed.Round(time.Millisecond), float64(total)/elapsed.Seconds())
	return stats, elapsed, nil
}

func countShoots(ctx context.Context, l *fixture.Landscape) (int, error) {
	list, err := l.Shoots(ctx)
	return len(list), err
}

// measureBaseline makes the given writes on the landscape's shoots with the
// given number of writers, while following the namespace as measureDrain
// does, and returns the baseline's writes and time.
func measureBaseline(ctx context.Context, cfg *rest.Config, l *fixture.Landscape, counts writes.Counts, writers int) (writes.Stats, time.Duration, error) {
	list, err := l.Shoots(ctx)
	if err != nil {
		return writes.Stats{}, 0, err
	}
	shoots := make([]*v1alpha1.Shoot, len(list))
	for i := range list {
		shoots[i] = &list[i]
	}
	plan, err := writes.Plan(counts, len(shoots))
	if err != nil {
		return writes.Stats{}, 0, err
	}
	counter := writes.NewCounter()
	clients, err := component.NewClients(counter.Wrap(cfg), "bench-baseline")
	if err != nil {
		return writes.Stats{}, 0, err
	}
	obs, err := writes.Observe(ctx, l.Graft, l.Kube, l.Name, nil)
	if err != nil {
		return writes.Stats{}, 0, err
	}
	defer obs.Stop()
	// The source seed too: a binding needs two seeds to choose a new one from.
	seeds := []string{l.SeedName("src")}
	for i := range *targets {
		seeds = append(seeds, l.SeedName(fmt.Sprintf("dst-%d", i)))
	}
	fmt.Printf("%s: %s with %d writers\n", l.Name, counts, writers)
	bl := &writes.Baseline{Graft: clients.Graft, Kube: clients.Kubernetes, Seeds: seeds, Writers: writers, Counter: counter}
	elapsed, err := bl.Run(ctx, shoots, plan)
	if err != nil {
		return writes.Stats{}, 0, err
	}
	stats := counter.Stats()
	fmt.Printf("%s: %d shoots in %v (%.1f shoots/s): %s\n", l.Name, len(shoots), elapsed.Round(time.Millisecond), float64(len(shoots))/elapsed.Seconds(), stats)
	return stats, elapsed, nil
}
