package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/signal"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/graft-dev/graft/pkg/controlplane"
	"github.com/graft-dev/graft/pkg/graftctl/drain"
	"github.com/graft-dev/graft/pkg/graftctl/seedcmd"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"

	graftclient "github.com/graft-dev/client-go/clientset/versioned"
	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/garden"
	"github.com/graft-dev/graft/test/e2e/landscapegen"
	"github.com/graft-dev/graft/test/invariant"
)

func main() {
	seed := flag.Uint64("seed", 0, "random seed; 0 picks one (printed first)")
	duration := flag.Duration("duration", 90*time.Second, "how long faults are injected")
	bound := flag.Duration("bound", 90*time.Second, "how long a shoot may stay pending while a seed fits it, or on a seed it must leave while another fits it")
	keep := flag.Bool("keep", false, "keep the logs of a run that passed too")
	binaries := flag.String("binaries", "", "run the daemons built into this directory (for example from an older commit) instead of building this tree's")
	api := flag.String("api", string(garden.Graft), "the API the daemons work on: core.graft.dev, or core.gardener.cloud (gardener-apiserver, a stand-in for gardenlet that finishes control-plane migrations, evictions as migrations)")
	flag.Parse()
	if *api != string(garden.Graft) && *api != string(garden.Gardener) {
		fmt.Fprintf(os.Stderr, "chaos: -api %q is neither %s nor %s\n", *api, garden.Graft, garden.Gardener)
		os.Exit(2)
	}
	if *seed == 0 {
		*seed = uint64(time.Now().UnixNano()) % 1_000_000_000
	}
	fmt.Printf("chaos: SEED=%d DURATION=%s API=%s\n", *seed, *duration, *api)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	r := &run{seed: *seed, duration: *duration, bound: *bound, rng: rand.New(rand.NewPCG(*seed, 0x9e3779b97f4a7c15)),
		actions: map[string]int{}, start: time.Now(), binaries: *binaries, keep: *keep, gardener: *api == string(garden.Gardener)}
	err := r.main(ctx)
	if err != nil {
		fmt.Fprintf(os.Stderr, "chaos: %v\n", err)
	}
	if err != nil || r.failed {
		fmt.Printf("chaos: FAILED; repeat with SEED=%d DURATION=%s API=%s; logs kept in %s\n", *seed, *duration, *api, r.dir)
		os.Exit(1)
	}
}

// run is one chaos run.
type run struct {
	seed     uint64
	duration time.Duration
	bound    time.Duration
	// binaries is a directory of prebuilt daemons; empty builds the tree's.
	binaries string
	// keep keeps the logs of a run that passed.
	keep bool
	// gardener runs the daemons on core.gardener.cloud (see gardener.go).
	gardener bool
	g        *gardenerGarden
	rng      *rand.Rand
	start    time.Time
	dir      string
	failed   bool

	cp       *controlplane.ControlPlane
	graft    graftclient.Interface
	kube     kubernetes.Interface
	check    *checker
	replicas []*replica
	land     *landscapegen.Landscape
	seeds    []string

	mu        sync.Mutex
	actions   map[string]int
	shoots    []string // live shoots the run created, namespace/name
	next      int
	apiDownAt []time.Time // API server restarts (start of each)
	pausedAt  map[string]time.Time
	expected  int // exits caused by the run
	ending    bool
	// poolReplicas is how many replicas of the scaled pool have a seed
	// (the Gardener mode).
	poolReplicas int
}

func (r *run) logf(format string, args ...any) {
	fmt.Printf("%s %7.1fs %s\n", time.Now().UTC().Format("15:04:05.000"), time.Since(r.start).Seconds(), fmt.Sprintf(format, args...))
}

func (r *run) count(kind string) {
	r.mu.Lock()
	r.actions[kind]++
	r.mu.Unlock()
}

const (
	numShoots  = 40
	tolKey     = "chaos.graft.dev/maintenance"
	scenario   = "chaos"
	shootNSKey = "garden-" + scenario
)

var taintKeys = []string{tolKey, "chaos.graft.dev/other"}

func (r *run) main(ctx context.Context) (retErr error) {
	var err error
	if r.dir, err = os.MkdirTemp("", "graft-chaos-"); err != nil {
		return err
	}
	r.logf("logs in %s", r.dir)
	defer func() {
		if retErr == nil && !r.failed && !r.keep {
			_ = os.RemoveAll(r.dir)
		}
	}()

	binDir := r.binaries
	if binDir == "" {
		r.logf("building the daemons")
		binDir = r.dir + "/bin"
		if err := buildBinaries(ctx, binDir); err != nil {
			return err
		}
	} else {
		r.logf("running the daemons in %s", binDir)
	}
	cpLog, err := os.Create(r.dir + "/controlplane.log")
	if err != nil {
		return err
	}
	defer cpLog.Close()
	// The watches and the gardenlet stand-in stop before the API servers.
	watchCtx, stopWatch := context.WithCancel(context.Background())
	if r.gardener {
		err = r.startGardener(ctx, watchCtx, cpLog)
	} else {
		err = r.startGraft(ctx, cpLog)
	}
	defer func() {
		if r.g != nil {
			_ = r.g.apiserver.Stop()
		}
		if r.cp != nil {
			_ = r.cp.Stop()
		}
	}()
	defer stopWatch()
	if err != nil {
		return err
	}
	if err := r.check.start(watchCtx); err != nil {
		return err
	}

	r.logf("starting two replicas of each daemon as their charts' ServiceAccounts")
	for _, chart := range componentCharts {
		for i := 0; i < 2; i++ {
			var extra []string
			if r.gardener {
				extra = gardenerValues[chart]
			}
			rep, err := prepareReplica(ctx, r.cp.RESTConfig, binDir, r.dir, chart, i, extra)
			if err != nil {
				return err
			}
			r.replicas = append(r.replicas, rep)
		}
	}
	r.pausedAt = map[string]time.Time{}
	for _, rep := range r.replicas {
		if err := rep.start(); err != nil {
			return err
		}
	}
	for _, rep := range r.replicas {
		if err := rep.waitReady(ctx, 2*time.Minute); err != nil {
			return err
		}
	}
	var sup sync.WaitGroup
	for _, rep := range r.replicas {
		sup.Add(1)
		go func() { defer sup.Done(); r.supervise(rep) }()
	}
	defer func() {
		r.mu.Lock()
		r.ending = true
		r.mu.Unlock()
		for _, rep := range r.replicas {
			_ = rep.signal(syscall.SIGCONT)
			_ = rep.signal(syscall.SIGTERM)
		}
		done := make(chan struct{})
		go func() { sup.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			for _, rep := range r.replicas {
				if rep.running() {
					r.logf("%s did not stop within 30s of SIGTERM; SIGKILL", rep.Name)
					_ = rep.signal(syscall.SIGKILL)
				}
			}
			<-done
		}
	}()

	for i := 0; i < numShoots/2; i++ {
		r.createShoot(ctx)
	}

	r.logf("injecting faults for %s", r.duration)
	r.faults(ctx)

	r.logf("faults over; waiting up to %s for the garden to settle", r.bound+30*time.Second)
	settleEnd := time.Now().Add(r.bound + 30*time.Second)
	for time.Now().Before(settleEnd) && ctx.Err() == nil {
		if r.check.settled() {
			break
		}
		time.Sleep(2 * time.Second)
	}
	r.check.judgeState(time.Now())
	if err := r.check.flush(ctx, 2*time.Minute); err != nil {
		r.logf("%v", err)
		r.failed = true
	}
	r.summary()
	return ctx.Err()
}

// startGraft starts etcd and kube-apiserver with graft's CRDs, and the
// landscape on graft's API.
func (r *run) startGraft(ctx context.Context, cpLog *os.File) error {
	r.logf("starting etcd and kube-apiserver on loopback")
	var err error
	r.cp, err = controlplane.StartControlPlane(ctx, controlplane.ControlPlaneOptions{Dir: r.dir + "/garden", Log: cpLog})
	if err != nil {
		return err
	}
	if err := controlplane.InstallCRDs(ctx, r.cp.RESTConfig); err != nil {
		return err
	}
	if r.graft, err = graftclient.NewForConfig(r.cp.RESTConfig); err != nil {
		return err
	}
	if err := r.kubeAndNamespaces(ctx); err != nil {
		return err
	}

	// Six seeds in two regions of one provider, little room each, so that
	// capacity and taints matter.
	r.land = landscapegen.Generate(landscapegen.Spec{Scenario: scenario, Providers: []string{"aws"}, RegionsPerProvider: 2, SeedsPerRegion: 3, SeedCapacity: 10})
	r.land.Shoots = nil
	if err := controlplane.Apply(ctx, r.cp.RESTConfig, r.land.Objects()); err != nil {
		return err
	}
	for _, s := range r.land.Seeds {
		r.seeds = append(r.seeds, s.Name)
	}
	r.check = newChecker(invariant.Sources(r.graft, r.kube), r.bound, r.logf, nil)
	return nil
}

// kubeAndNamespaces makes the Kubernetes client and the namespaces of the
// charts' ServiceAccounts and of the garden.
func (r *run) kubeAndNamespaces(ctx context.Context) error {
	var err error
	if r.kube, err = kubernetes.NewForConfig(r.cp.RESTConfig); err != nil {
		return err
	}
	for _, ns := range []string{componentNamespace, corev1alpha1.GardenNamespace} {
		if err := controlplane.Apply(ctx, r.cp.RESTConfig, nsObjects(ns)); err != nil {
			return err
		}
	}
	return nil
}

// faults injects random actions until the duration has passed, with one API
// server restart in the middle third.
func (r *run) faults(ctx context.Context) {
	end := time.Now().Add(r.duration)
	restartAt := time.Now().Add(r.duration/3 + time.Duration(r.rng.Int64N(int64(r.duration/3))))
	restarted := false
	var wg sync.WaitGroup
	defer wg.Wait()
	for time.Now().Before(end) && ctx.Err() == nil {
		if !restarted && time.Now().After(restartAt) {
			restarted = true
			r.restartAPIServer(ctx)
			continue
		}
		switch n := r.rng.IntN(100); {
		case n < 35:
			// Churn around three quarters of numShoots.
			r.mu.Lock()
			live := len(r.shoots)
			r.mu.Unlock()
			if r.rng.IntN(numShoots) >= live*3/4 {
				r.createShoot(ctx)
			} else {
				r.deleteShoot(ctx)
			}
		case n < 57:
			r.addTaint(ctx)
		case n < 72:
			r.removeTaint(ctx)
		case n < 78 || (n < 81 && !r.gardener):
			r.setCapacity(ctx)
		case n < 81:
			r.recreatePoolShoots(ctx)
		case n < 86:
			r.drainInWindows(ctx)
		case n < 93:
			r.killLeader(ctx, &wg)
		default:
			r.pauseLeader(ctx, &wg)
		}
		// Between actions: 0.2 to 2 seconds.
		time.Sleep(time.Duration(200+r.rng.IntN(1800)) * time.Millisecond)
	}
}

func (r *run) reqCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, 10*time.Second)
}

func (r *run) createShoot(ctx context.Context) {
	// Every random draw comes first, so that a seed draws the same numbers
	// whatever the garden's state.
	regionIndex := r.rng.IntN(2)
	purposes := []corev1alpha1.ShootPurpose{corev1alpha1.ShootPurposeEvaluation, corev1alpha1.ShootPurposeDevelopment, corev1alpha1.ShootPurposeProduction}
	// Tolerations of 5 to 120 s: below a minute (algorithm.MinimumStay)
	// the tainted seeds are no place for the shoot, above it a limited stay.
	purpose, zoneHA, tolerate, secs := purposes[r.rng.IntN(len(purposes))], r.rng.IntN(6) == 0, r.rng.IntN(3), int64(5+r.rng.IntN(116))
	window, ha := r.window(r.rng.IntN(3), r.rng.IntN(240)), r.rng.IntN(3) == 0
	r.mu.Lock()
	if len(r.shoots) >= numShoots {
		r.mu.Unlock()
		return
	}
	name := fmt.Sprintf("s-%04d", r.next)
	r.next++
	r.mu.Unlock()
	// tolerate: 0 tolerates the maintenance taint for ever, 1 for secs
	// seconds, 2 not at all.
	desc := map[int]string{0: "tolerating", 1: fmt.Sprintf("tolerating %ds", secs), 2: "untolerating"}[tolerate]
	var k, region string
	var create func(ctx context.Context) error
	if r.gardener {
		region, k = gardenerRegions[regionIndex], gardenerNamespace+"/"+name
		create = func(ctx context.Context) error {
			return r.createGardenerShoot(ctx, name, region, tolerate, secs, window, ha)
		}
	} else {
		region = landscapegen.Region("aws", regionIndex)
		shoot := landscapegen.Shoot(r.land.Spec, name, "aws", region, purpose, zoneHA)
		shoot.Spec.Maintenance = &corev1alpha1.Maintenance{TimeWindow: window}
		switch tolerate {
		case 0:
			shoot.Spec.Tolerations = []corev1alpha1.Toleration{{Key: tolKey}}
		case 1:
			shoot.Spec.Tolerations = []corev1alpha1.Toleration{{Key: tolKey, Effect: corev1alpha1.TaintEffectNoExecute, TolerationSeconds: &secs}}
		}
		k = shoot.Namespace + "/" + shoot.Name
		create = func(ctx context.Context) error {
			_, err := r.graft.CoreV1alpha1().Shoots(shoot.Namespace).Create(ctx, shoot, metav1.CreateOptions{})
			return err
		}
	}
	c, cancel := r.reqCtx(ctx)
	defer cancel()
	r.check.Created(k) // before the watch can see it
	if err := create(c); err != nil {
		r.check.Deleted(k) // never came to be
		r.logf("create shoot %s: %v", k, err)
		return
	}
	r.mu.Lock()
	r.shoots = append(r.shoots, k)
	r.mu.Unlock()
	r.count("createShoot")
	r.logf("created shoot %s in %s (%s, maintenance window %s-%s, highly available %v)", k, region, desc, window.Begin, window.End, ha || zoneHA)
}

// window is a shoot's maintenance window of an hour: open now (kind 0),
// opening in delay seconds (1), or far from the run (2), so that deferrable
// moves have to wait for some windows and the deadline of others.
func (r *run) window(kind, delay int) *corev1alpha1.MaintenanceTimeWindow {
	begin := time.Now().UTC()
	switch kind {
	case 0:
		begin = begin.Add(-10 * time.Minute)
	case 1:
		begin = begin.Add(time.Duration(30+delay) * time.Second)
	default:
		begin = begin.Add(8 * time.Hour)
	}
	return &corev1alpha1.MaintenanceTimeWindow{Begin: begin.Format("150405") + "+0000", End: begin.Add(time.Hour).Format("150405") + "+0000"}
}

// drainInWindows drains a seed in maintenance windows as graftctl does (the
// deadline, one to four minutes away, before the cordon and drain taints),
// or ends such a drain (the taints, then the deadline).
func (r *run) drainInWindows(ctx context.Context) {
	seed := r.seeds[r.rng.IntN(len(r.seeds))]
	deadline := time.Now().Add(time.Duration(60+r.rng.IntN(180)) * time.Second).UTC().Truncate(time.Second)
	client := r.gardenClient()
	c, cancel := r.reqCtx(ctx)
	defer cancel()
	current, err := client.GetSeed(c, seed)
	if err != nil {
		r.logf("drain seed %s in windows: %v", seed, err)
		return
	}
	if _, drained := current.Annotations[corev1alpha1.AnnotationDrainDeadline]; drained {
		if _, err := drain.Set(c, client, seed, false, seedcmd.DryRunNone); err != nil {
			r.logf("end the drain of seed %s: %v", seed, err)
			return
		}
		r.count("undrainInWindows")
		r.logf("ended the drain in windows of seed %s", seed)
		return
	}
	if _, _, err := drain.SetDrainDeadline(c, client, seed, &deadline, seedcmd.DryRunNone); err != nil {
		r.logf("drain seed %s in windows: %v", seed, err)
		return
	}
	err = r.updateTaints(ctx, seed, func(taints []corev1alpha1.SeedTaint) ([]corev1alpha1.SeedTaint, bool) {
		out, changed, _ := drain.DrainedAt(taints, time.Now())
		return out, changed
	})
	if err != nil && !errors.Is(err, errNoChange) {
		r.logf("drain seed %s in windows: %v", seed, err)
		return
	}
	r.count("drainInWindows")
	r.logf("drained seed %s in maintenance windows until %s", seed, deadline.Format(time.RFC3339))
}

// gardenClient is the client of the run's API.
func (r *run) gardenClient() garden.Client {
	if r.gardener {
		return r.g.client
	}
	return garden.NewGraft(r.graft)
}

// forget takes k off the run's live shoots; false if it was not there.
func (r *run) forget(k string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	i := slices.Index(r.shoots, k)
	if i < 0 {
		return false
	}
	r.shoots = append(r.shoots[:i], r.shoots[i+1:]...)
	return true
}

func (r *run) deleteShoot(ctx context.Context) {
	r.mu.Lock()
	if len(r.shoots) == 0 {
		r.mu.Unlock()
		return
	}
	k := r.shoots[r.rng.IntN(len(r.shoots))]
	r.mu.Unlock()
	r.forget(k)
	ns, name, _ := strings.Cut(k, "/")
	r.check.Deleted(k)
	c, cancel := r.reqCtx(ctx)
	defer cancel()
	var err error
	if r.gardener {
		err = r.deleteGardenerShoot(c, name)
	} else {
		err = r.graft.CoreV1alpha1().Shoots(ns).Delete(c, name, metav1.DeleteOptions{})
	}
	if err != nil && !apierrors.IsNotFound(err) {
		// It may or may not be gone; either is accounted for.
		r.logf("delete shoot %s: %v", k, err)
	}
	r.count("deleteShoot")
	r.logf("deleted shoot %s", k)
}

// updateSeed reads a seed and writes it changed, preconditioned on the
// resourceVersion read; a conflict is retried a few times.
func (r *run) updateSeed(ctx context.Context, name string, change func(*corev1alpha1.Seed) bool) error {
	for attempt := 0; attempt < 5; attempt++ {
		c, cancel := r.reqCtx(ctx)
		seed, err := r.graft.CoreV1alpha1().Seeds().Get(c, name, metav1.GetOptions{})
		if err != nil {
			cancel()
			return err
		}
		if !change(seed) {
			cancel()
			return errNoChange
		}
		_, err = r.graft.CoreV1alpha1().Seeds().Update(c, seed, metav1.UpdateOptions{})
		cancel()
		if !apierrors.IsConflict(err) {
			return err
		}
	}
	return fmt.Errorf("seed %s: conflicts on every attempt", name)
}

var errNoChange = errors.New("nothing to change")

// updateTaints changes a seed's taints on the run's API.
func (r *run) updateTaints(ctx context.Context, name string, change func([]corev1alpha1.SeedTaint) ([]corev1alpha1.SeedTaint, bool)) error {
	if r.gardener {
		return r.updateGardenerTaints(ctx, name, change)
	}
	return r.updateSeed(ctx, name, func(s *corev1alpha1.Seed) bool {
		taints, changed := change(s.Spec.Taints)
		if changed {
			s.Spec.Taints = taints
		}
		return changed
	})
}

func (r *run) addTaint(ctx context.Context) {
	seed := r.seeds[r.rng.IntN(len(r.seeds))]
	effects := []corev1alpha1.TaintEffect{corev1alpha1.TaintEffectNoSchedule, corev1alpha1.TaintEffectPreferNoSchedule,
		corev1alpha1.TaintEffectNoExecute, corev1alpha1.TaintEffectNoExecute}
	t := corev1alpha1.SeedTaint{Key: taintKeys[r.rng.IntN(len(taintKeys))], Effect: effects[r.rng.IntN(len(effects))]}
	if t.Effect == corev1alpha1.TaintEffectNoExecute {
		now := metav1.Now()
		t.TimeAdded = &now
	}
	err := r.updateTaints(ctx, seed, func(taints []corev1alpha1.SeedTaint) ([]corev1alpha1.SeedTaint, bool) {
		for _, have := range taints {
			if have.Key == t.Key && have.Effect == t.Effect {
				return nil, false
			}
		}
		return append(taints, t), true
	})
	if err != nil {
		if !errors.Is(err, errNoChange) {
			r.logf("taint seed %s: %v", seed, err)
		}
		return
	}
	r.count("taint" + string(t.Effect))
	r.logf("tainted seed %s with %s:%s", seed, t.Key, t.Effect)
}

func (r *run) removeTaint(ctx context.Context) {
	// A seed that carries one of the run's taints, as far as the checker knows.
	var tainted []string
	for _, name := range r.seeds {
		if r.check.hasTaint(name, "chaos.graft.dev/") {
			tainted = append(tainted, name)
		}
	}
	pick := r.rng.IntN(1 << 20)
	if len(tainted) == 0 {
		return
	}
	seed := tainted[pick%len(tainted)]
	var removed string
	err := r.updateTaints(ctx, seed, func(taints []corev1alpha1.SeedTaint) ([]corev1alpha1.SeedTaint, bool) {
		var ours []int
		for i, t := range taints {
			if strings.HasPrefix(t.Key, "chaos.graft.dev/") {
				ours = append(ours, i)
			}
		}
		if len(ours) == 0 {
			return nil, false
		}
		i := ours[pick%len(ours)]
		removed = string(taints[i].Key) + ":" + string(taints[i].Effect)
		return append(taints[:i:i], taints[i+1:]...), true
	})
	if err != nil {
		if !errors.Is(err, errNoChange) {
			r.logf("untaint seed %s: %v", seed, err)
		}
		return
	}
	r.count("untaint")
	r.logf("removed taint %s from seed %s", removed, seed)
}

func (r *run) setCapacity(ctx context.Context) {
	seed := r.seeds[r.rng.IntN(len(r.seeds))]
	n := 2 + r.rng.IntN(12)
	capacity := fmt.Sprint(n)
	if r.gardener {
		if err := r.setGardenerCapacity(ctx, seed, n); err != nil {
			r.logf("capacity of seed %s: %v", seed, err)
			return
		}
		r.count("capacity")
		r.logf("seed %s reports status.allocatable.shoots=%d", seed, n)
		return
	}
	err := r.updateSeed(ctx, seed, func(s *corev1alpha1.Seed) bool {
		if s.Annotations == nil {
			s.Annotations = map[string]string{}
		}
		s.Annotations[corev1alpha1.AnnotationCapacityShoots] = capacity
		return true
	})
	if err != nil {
		r.logf("capacity of seed %s: %v", seed, err)
		return
	}
	r.count("capacity")
	r.logf("set capacity.graft.dev/shoots=%s on seed %s", capacity, seed)
}

// leader returns the replica holding the chart's Lease, if it is known.
func (r *run) leader(ctx context.Context, chart string) *replica {
	c, cancel := r.reqCtx(ctx)
	defer cancel()
	lease, err := r.kube.CoordinationV1().Leases(corev1alpha1.GardenNamespace).Get(c, chart, metav1.GetOptions{})
	if err != nil || lease.Spec.HolderIdentity == nil {
		return nil
	}
	for _, rep := range r.replicas {
		if rep.Chart == chart && rep.running() && rep.identityIn(*lease.Spec.HolderIdentity) {
			return rep
		}
	}
	return nil
}

func (r *run) killLeader(ctx context.Context, wg *sync.WaitGroup) {
	chart := componentCharts[r.rng.IntN(len(componentCharts))]
	rep := r.leader(ctx, chart)
	if rep == nil || rep.paused() {
		return
	}
	if err := rep.signal(syscall.SIGKILL); err != nil {
		return
	}
	r.count("killLeader")
	r.logf("SIGKILL leader %s", rep.Name)
}

func (r *run) pauseLeader(ctx context.Context, wg *sync.WaitGroup) {
	chart := componentCharts[r.rng.IntN(len(componentCharts))]
	pause := leaseDuration + time.Duration(2000+r.rng.IntN(8000))*time.Millisecond
	rep := r.leader(ctx, chart)
	if rep == nil || rep.paused() {
		return
	}
	r.mu.Lock()
	r.pausedAt[rep.Name] = time.Now()
	r.mu.Unlock()
	if err := rep.signal(syscall.SIGSTOP); err != nil {
		return
	}
	r.count("pauseLeader")
	r.logf("SIGSTOP leader %s for %s", rep.Name, pause)
	wg.Add(1)
	go func() {
		defer wg.Done()
		time.Sleep(pause)
		_ = rep.signal(syscall.SIGCONT)
		r.mu.Lock()
		r.pausedAt[rep.Name] = time.Now() // its lease-lost exit counts from here
		r.mu.Unlock()
		r.logf("SIGCONT %s", rep.Name)
	}()
}

func (r *run) restartAPIServer(ctx context.Context) {
	r.mu.Lock()
	r.apiDownAt = append(r.apiDownAt, time.Now())
	r.mu.Unlock()
	r.logf("restarting kube-apiserver")
	t := time.Now()
	c, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	if err := r.cp.StopAPIServer(); err != nil {
		r.logf("stopping kube-apiserver: %v", err)
	}
	r.logf("kube-apiserver stopped after %s", time.Since(t).Round(time.Millisecond))
	if err := r.cp.RestartAPIServer(c); err != nil {
		r.logf("restarting kube-apiserver: %v", err)
		r.failed = true
		return
	}
	r.mu.Lock()
	r.apiDownAt[len(r.apiDownAt)-1] = time.Now() // leases lost count from its return
	r.mu.Unlock()
	r.count("restartAPIServer")
	r.logf("kube-apiserver back after %s", time.Since(t).Round(time.Millisecond))
}

// supervise restarts the replica after every exit, as a Deployment would,
// and records an exit the run did not cause as a crash: it caused SIGKILLs,
// and a lost lease within a minute of a pause of that replica or of an API
// server restart.
func (r *run) supervise(rep *replica) {
	for {
		e := rep.wait()
		r.mu.Lock()
		ending := r.ending
		r.mu.Unlock()
		if ending {
			return
		}
		cause := r.expectedExit(rep, e)
		if cause == "" {
			r.check.violate(invariant.Violation{Rule: ruleCrash, At: e.At,
				Message: fmt.Sprintf("%s exited (%v) with no cause of the run's; last log line: %s", rep.Name, e.Err, e.Last)})
		} else {
			r.mu.Lock()
			r.expected++
			r.mu.Unlock()
			r.logf("%s exited (%s): %s", rep.Name, cause, e.Last)
		}
		time.Sleep(time.Second)
		r.mu.Lock()
		ending = r.ending
		r.mu.Unlock()
		if ending {
			return
		}
		if err := rep.start(); err != nil {
			r.check.violate(invariant.Violation{Rule: ruleCrash, Message: err.Error()})
			return
		}
		r.logf("restarted %s", rep.Name)
	}
}

func (r *run) expectedExit(rep *replica, e exit) string {
	if e.Killed {
		return "killed by the run"
	}
	if !strings.Contains(e.Last, "leader election lost") {
		return ""
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if at, ok := r.pausedAt[rep.Name]; ok && e.At.Sub(at) < time.Minute {
		return "lease lost after the run paused it"
	}
	for _, at := range r.apiDownAt {
		if e.At.Sub(at) < time.Minute && e.At.After(at.Add(-3*time.Minute)) {
			return "lease lost across the API server restart"
		}
	}
	return ""
}

func (r *run) summary() {
	vs := r.check.Violations()
	bindings, evictions, maxPending, maxLeaving := r.check.counts()
	r.mu.Lock()
	var kinds []string
	total := 0
	for k, n := range r.actions {
		kinds = append(kinds, fmt.Sprintf("%s=%d", k, n))
		total += n
	}
	expected := r.expected
	r.mu.Unlock()
	sort.Strings(kinds)
	for _, v := range vs {
		fmt.Printf("violation: %s\n", v)
	}
	for _, s := range r.check.monitor.SkipSummary() {
		fmt.Printf("not judged: %s\n", s)
	}
	if len(vs) > 0 {
		r.failed = true
	}
	fmt.Printf("chaos: longest wait while a seed fitted: pending %s, on a seed it had to leave %s (bound %s)\n",
		maxPending.Round(time.Second), maxLeaving.Round(time.Second), r.bound)
	perMinute, most, perShoot := r.check.evictionSpread()
	fmt.Printf("chaos: most evictions of one shoot: %d within %s (%s; more than %d is a violation), %d in the run\n",
		perMinute, loopWindow, most, loopEvictions, perShoot)
	deferred, live := r.check.timedMoves()
	evidence := "none declared: judged as classic"
	if liveEvidenced() {
		evidence = "declared: exempt from the window rule"
	}
	fmt.Printf("chaos: deferrable moves made in a window or at a deadline: %d; moves written as live: %d (gardenlet live flow %s)\n", deferred, live, evidence)
	fmt.Printf("chaos: moves by the improving plugins (Rebalance, ComeHome): %d (one of a shoot moved before in the run is a violation)\n", r.check.improved())
	if r.gardener {
		r.mu.Lock()
		replicas := r.poolReplicas
		r.mu.Unlock()
		fmt.Printf("chaos: pool %s: %d replicas with a seed (at most %d); scale-outs judged by the demand they named: %s\n",
			poolName, replicas, poolMaxReplicas, r.check.poolCounts())
		total, perSeed := r.check.flights()
		fmt.Printf("chaos: most migrations in flight: %d in all (limit %d), %d to one seed (limit %d)\n",
			total, chaosMaxMigrationsInFlight, perSeed, chaosMaxMigrationsInFlightPerSeed)
	}
	if failed, placed, err := r.schedulerDecisions(); err != nil {
		fmt.Printf("chaos: reading the schedulers' logs: %v\n", err)
	} else {
		fmt.Printf("chaos: graft-scheduler decisions: %d failed, %d bound: %.2f failed decisions per binding\n",
			failed, placed, float64(failed)/float64(max(1, placed)))
	}
	fmt.Printf("chaos: SEED=%d DURATION=%s wall=%s actions=%d (%s) bindings=%d evictions=%d judged=%d expectedExits=%d watchGaps=%d violations=%d\n",
		r.seed, r.duration, time.Since(r.start).Round(time.Second), total, strings.Join(kinds, " "), bindings, evictions,
		r.check.monitor.Judged(), expected, r.check.monitor.Gaps(), len(vs))
}

func nsObjects(name string) []runtime.Object {
	return []runtime.Object{&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}}
}

// schedulerDecisions counts the failed decisions ("No seed fits") and the
// bindings ("Scheduled") every graft-scheduler replica logged (verbosity 2).
func (r *run) schedulerDecisions() (failed, placed int, err error) {
	for _, rep := range r.replicas {
		if rep.Chart != "graft-scheduler" {
			continue
		}
		data, err := os.ReadFile(rep.log)
		if err != nil {
			return 0, 0, err
		}
		failed += bytes.Count(data, []byte(`] "No seed fits" `))
		placed += bytes.Count(data, []byte(`] "Scheduled" `))
	}
	return failed, placed, nil
}
