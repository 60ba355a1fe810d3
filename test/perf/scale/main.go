package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/graft-dev/graft/pkg/controlplane"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/graftctl/drain"
	"github.com/graft-dev/graft/test/integration/descheduler/fixture"
	"github.com/graft-dev/graft/test/perf/daemon"
	"github.com/graft-dev/graft/test/perf/writes"
)

type options struct {
	seeds, shoots, pending, drain int
	workers                       int
	window                        time.Duration
	passes                        int
	interval                      time.Duration
}

// The targets the figures are judged against.
const (
	targetReady      = 10 * time.Second
	targetSteadyMiB  = 300
	targetPass       = 5 * time.Millisecond
	targetWritesSeed = 1.01
)

var daemons = []string{"graft-scheduler", "graft-descheduler", "graft-capacity-annotator"}

func main() {
	var o options
	flag.IntVar(&o.seeds, "seeds", 2000, "seeds (N)")
	flag.IntVar(&o.shoots, "shoots", 100000, "shoots (M), the pending ones included")
	flag.IntVar(&o.pending, "pending", 2000, "shoots without a seed, for graft-scheduler to bind")
	flag.IntVar(&o.drain, "drain", 500, "shoots on the seed that is drained")
	flag.IntVar(&o.workers, "workers", 64, "concurrent writers creating the landscape")
	flag.DurationVar(&o.window, "window", 15*time.Second, "how long a daemon's steady RSS is sampled once it is idle")
	flag.IntVar(&o.passes, "passes", 3, "descheduler passes without taints sampled after its first")
	flag.DurationVar(&o.interval, "interval", 5*time.Second, "graft-descheduler's interval between full passes")
	flag.Parse()
	if o.seeds < 2 || o.pending+o.drain > o.shoots || o.drain < 0 || o.pending < 0 || o.passes < 1 {
		fmt.Fprintln(os.Stderr, "bench-scale: need -seeds >= 2, -passes >= 1 and -pending + -drain <= -shoots")
		os.Exit(2)
	}
	if err := run(context.Background(), o); err != nil {
		fmt.Fprintf(os.Stderr, "bench-scale: %v\n", err)
		os.Exit(1)
	}
}

// bench is one run: the control plane, the landscape and what was measured.
type bench struct {
	o      options
	cp     *controlplane.ControlPlane
	l      *fixture.Landscape
	binDir string
	dir    string
	api    *daemon.MemSampler
	// windows are the steady windows of the run, for the API server's RSS.
	windows [][2]time.Time
	empty   map[string]result
	results map[string]result
}

// result is what was measured of one daemon in one landscape.
type result struct {
	ready, leading time.Duration
	// readyCPU and apiCPU are the CPU time the daemon and kube-apiserver
	// spent from the daemon's start until it was ready: which side the
	// start-up waits for.
	readyCPU, apiCPU time.Duration
	// auditFrom is where the audit log ended when the daemon was started:
	// its writes are those after it.
	auditFrom int64
	steadyKiB int64 // median VmRSS over the steady window
	peakKiB   int64 // VmHWM when it was stopped
	apiKiB    int64 // kube-apiserver's median VmRSS over the same window
	lines     []string
}

func run(ctx context.Context, o options) error {
	start := time.Now()
	dir, err := os.MkdirTemp("", "graft-bench-scale-")
	if err != nil {
		return err
	}
	failed := false
	defer func() {
		if failed {
			fmt.Printf("logs kept in %s\n", dir)
			return
		}
		os.RemoveAll(dir)
	}()
	b := &bench{o: o, dir: dir, binDir: filepath.Join(dir, "bin"), empty: map[string]result{}, results: map[string]result{}}
	fmt.Println("building the daemons and graftctl")
	if _, err := controlplane.BuildBinaries(ctx, b.binDir, append(slices.Clone(daemons), "graftctl")...); err != nil {
		return err
	}
	etcd, err := controlplane.EtcdBinary()
	if err != nil {
		return err
	}
	version, err := exec.CommandContext(ctx, etcd, "--version").Output()
	if err != nil {
		return fmt.Errorf("%s --version: %w", etcd, err)
	}
	fmt.Printf("starting the local control plane (%s)\n", strings.SplitN(strings.TrimSpace(string(version)), "\n", 2)[0])
	b.cp, err = controlplane.StartControlPlane(ctx, controlplane.ControlPlaneOptions{})
	if err != nil {
		return err
	}
	defer b.cp.Stop()
	if err := controlplane.InstallCRDs(ctx, b.cp.RESTConfig); err != nil {
		return err
	}
	b.api = daemon.SampleMemory(b.cp.APIServerPID())
	defer b.api.Stop()
	b.l, err = fixture.New(ctx, b.cp.RESTConfig, landscapeName)
	if err != nil {
		return err
	}
	for _, ns := range []string{pendingNS, daemon.ComponentNamespace} {
		if _, err := b.l.Kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}

	// Each daemon alone on the empty landscape (no seeds, no shoots): the
	// memory a daemon needs before it caches anything.
	for _, chart := range daemons {
		fmt.Printf("%s on the empty landscape\n", chart)
		if err := b.measureEmpty(ctx, chart); err != nil {
			return err
		}
	}

	fmt.Printf("creating the landscape: %d seeds, %d shoots (%d bound, %d of them on the seed to drain, %d pending)\n",
		o.seeds, o.shoots, o.shoots-o.pending, o.drain, o.pending)
	created := time.Now()
	if err := createSeeds(ctx, b.l, o); err != nil {
		return err
	}
	if err := createShoots(ctx, b.l, o); err != nil {
		return err
	}
	fmt.Printf("landscape created in %v\n", time.Since(created).Round(time.Second))

	// Each daemon alone on the full landscape, one after the other, so that
	// neither their RSS nor their start-up times mix. A daemon that fails
	// is reported and the others are still measured.
	for i, measure := range []func(context.Context) error{b.measureScheduler, b.measureDescheduler, b.measureAnnotator} {
		if err := measure(ctx); err != nil {
			fmt.Printf("%s: FAILED: %v\n", daemons[i], err)
			failed = true
		}
	}
	b.report(time.Since(start))
	if failed {
		return errors.New("a daemon failed on the full landscape (above)")
	}
	return nil
}

// settings are the chart values every daemon runs with besides the chart's
// defaults (client QPS 100, burst 130, lease 15s/10s/2s).
func (b *bench) settings(chart string) (set, setJSON []string) {
	set, setJSON = b.chartValues(chart)
	// Verbosity 2: the lease, the fence's catch-up and each binding or
	// eviction are logged, a few lines per shoot moved at most.
	return append(set, "config.logging.verbosity=2"), setJSON
}

func (b *bench) chartValues(chart string) (set, setJSON []string) {
	switch chart {
	case "graft-descheduler":
		// No per-pass budgets, so that one pass evicts the drained seed's
		// shoots: the pass time covers them all.
		return []string{"config.interval=" + b.o.interval.String(), "config.maxEvictionsPerSeed=0", "config.maxEvictionsTotal=0",
			"config.evictionRate=0", "config.maxPendingEvicted=0"}, nil
	case "graft-capacity-annotator":
		// The capacity the seeds' allocatable already says, so that the
		// annotator's first write per seed (capacity and usage) is its last.
		return nil, []string{fmt.Sprintf(`config.capacity={"shoots":"%d"}`, b.o.allocatable())}
	}
	return nil, nil
}

// startMeasured starts chart and waits until it is ready and leads.
func (b *bench) startMeasured(ctx context.Context, chart string) (*daemon.Daemon, result, error) {
	set, setJSON := b.settings(chart)
	apiCPU, err := daemon.ReadCPU(b.cp.APIServerPID())
	if err != nil {
		return nil, result{}, err
	}
	var r result
	if r.auditFrom, err = daemon.AuditSize(b.cp.AuditLog); err != nil {
		return nil, result{}, err
	}
	d, err := daemon.Start(ctx, b.cp.RESTConfig, b.binDir, b.dir, chart, set, setJSON)
	if err != nil {
		return nil, result{}, err
	}
	// Both at once: a daemon may lead before its informers have synced.
	leading := make(chan error, 1)
	go func() {
		var err error
		r.leading, err = d.WaitLeading(ctx, b.l.Kube)
		leading <- err
	}()
	r.ready, err = d.WaitReady(ctx)
	if err == nil {
		r.readyCPU, err = daemon.ReadCPU(d.Proc.Pid())
	}
	if err == nil {
		var now time.Duration
		now, err = daemon.ReadCPU(b.cp.APIServerPID())
		r.apiCPU = now - apiCPU
	}
	if lerr := <-leading; err == nil {
		err = lerr
	}
	if err != nil {
		d.Stop()
		return nil, result{}, d.Failed(err)
	}
	return d, r, nil
}

// steady samples the daemon's and the API server's RSS over [from, to] and
// checks that the daemon is still running.
func (b *bench) steady(d *daemon.Daemon, r *result, from, to time.Time) error {
	if err := d.Proc.Exited(); err != nil {
		return fmt.Errorf("%s: %w (log in %s)", d.Chart, err, d.LogDir())
	}
	r.steadyKiB = d.Mem.Median(from, to)
	r.apiKiB = b.api.Median(from, to)
	b.windows = append(b.windows, [2]time.Time{from, to})
	return nil
}

// steadyWindow waits out the steady window of b.o.window, which starts now
// (a measurement period, not a wait for something to happen), and samples it.
func (b *bench) steadyWindow(ctx context.Context, d *daemon.Daemon, r *result) error {
	from := time.Now()
	t := time.NewTimer(b.o.window)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		return ctx.Err()
	}
	return b.steady(d, r, from, time.Now())
}

func (b *bench) stop(d *daemon.Daemon, r *result) error {
	peak, err := d.Stop()
	r.peakKiB = peak
	return err
}

// measureEmpty runs chart on the empty landscape: ready, leading, then its
// steady window (the descheduler's: its first passes).
func (b *bench) measureEmpty(ctx context.Context, chart string) error {
	d, r, err := b.startMeasured(ctx, chart)
	if err != nil {
		return err
	}
	err = b.steadyWindow(ctx, d, &r)
	if serr := b.stop(d, &r); err == nil {
		err = serr
	}
	b.empty[chart] = r
	fmt.Printf("%s on the empty landscape: ready %s, steady RSS %s\n", chart, secs(r.ready), mib(r.steadyKiB))
	return err
}

// measureScheduler runs graft-scheduler until every pending shoot is bound,
// then samples its steady RSS.
func (b *bench) measureScheduler(ctx context.Context) error {
	const chart = "graft-scheduler"
	fmt.Printf("%s: binding %d pending shoots\n", chart, b.o.pending)
	obs, err := writes.Observe(ctx, b.l.Graft, b.l.Kube, pendingNS, func(s *v1alpha1.Shoot) bool { return s.Spec.SeedName != nil })
	if err != nil {
		return err
	}
	defer obs.Stop()
	d, r, err := b.startMeasured(ctx, chart)
	if err != nil {
		return err
	}
	defer b.stop(d, &r)
	progress := time.NewTicker(30 * time.Second)
	defer progress.Stop()
	go func() {
		for range progress.C {
			fmt.Printf("%s: %d/%d pending shoots bound after %s\n", chart, len(obs.DoneAt()), b.o.pending, secs(time.Since(d.Started)))
		}
	}()
	if _, err := obs.Wait(ctx, b.o.pending, 5*time.Minute, time.Second); err != nil {
		return d.Failed(err)
	}
	var last time.Time
	for _, at := range obs.DoneAt() {
		if at.After(last) {
			last = at
		}
	}
	bind := last.Sub(d.Started)
	if err := b.steadyWindow(ctx, d, &r); err != nil {
		return err
	}
	if err := b.stop(d, &r); err != nil {
		return err
	}
	ok, refused, _, err := daemon.AuditWrites(b.cp.AuditLog, r.auditFrom, serviceAccountUser(chart))
	if err != nil {
		return err
	}
	r.lines = append(r.lines, fmt.Sprintf("%d pending shoots bound %s after the start (%s after ready); writes %s",
		b.o.pending, secs(bind), secs(bind-r.ready), countsLine(ok, refused)))
	b.results[chart] = r
	fmt.Printf("%s: ready %s, leading %s, %s\n", chart, secs(r.ready), secs(r.leading), r.lines[0])
	return nil
}

// measureDescheduler runs graft-descheduler on the landscape without taints
// for its first pass and b.o.passes more (its steady window), then drains
// seed 0 as graftctl drain does (cordon, then the NoExecute taint) and
// times the pass that evicts its shoots.
func (b *bench) measureDescheduler(ctx context.Context) error {
	const chart = "graft-descheduler"
	fmt.Printf("%s: %d passes without taints, then a drained seed of %d shoots\n", chart, 1+b.o.passes, b.o.drain)
	d, r, err := b.startMeasured(ctx, chart)
	if err != nil {
		return err
	}
	defer b.stop(d, &r)
	w := watchPasses(ctx, d)
	defer w.stop()
	// Passes end once the first has; the steady window runs from the end of
	// the first to the end of the b.o.passes-th after it.
	timeout := 5*time.Minute + time.Duration(b.o.passes+1)*b.o.interval
	if err := w.waitFor(ctx, timeout, func(p []pass) bool { return passesIn(p) >= 1+b.o.passes }); err != nil {
		return d.Failed(fmt.Errorf("waiting for %d passes: %w", 1+b.o.passes, err))
	}
	noTaints := w.list()
	if err := b.steady(d, &r, noTaints[0].at, noTaints[len(noTaints)-1].at); err != nil {
		return err
	}
	first := noTaints[0]
	var later []float64
	for _, p := range noTaints[1:] {
		later = append(later, p.seconds/float64(p.n))
	}

	// The drain: graftctl's cordon and then its NoExecute taint.
	offset, err := daemon.AuditSize(b.cp.AuditLog)
	if err != nil {
		return err
	}
	seed := b.l.SeedName(seedShort(0))
	if err := b.graftctl(ctx, "cordon", seed); err != nil {
		return err
	}
	if err := b.graftctl(ctx, "taint", "seed", seed, fmt.Sprintf("%s:%s", drain.DrainTaint.Key, drain.DrainTaint.Effect)); err != nil {
		return err
	}
	tainted := time.Now()
	before := len(w.list())
	err = w.waitFor(ctx, 5*time.Minute, func(p []pass) bool {
		n := 0
		for _, q := range p[before:] {
			n += q.evictions
		}
		return n >= b.o.drain
	})
	if err != nil {
		return d.Failed(fmt.Errorf("waiting for %d evictions: %w", b.o.drain, err))
	}
	var drainSecs float64
	var drainPasses, evictions int
	for _, p := range w.list()[before:] {
		if p.evictions > 0 {
			drainSecs += p.seconds
			drainPasses += p.n
			evictions += p.evictions
		}
	}
	if err := b.stop(d, &r); err != nil {
		return err
	}
	ok, refused, _, err := daemon.AuditWrites(b.cp.AuditLog, offset, serviceAccountUser(chart))
	if err != nil {
		return err
	}
	r.lines = append(r.lines,
		fmt.Sprintf("pass without taints: first %s, then median %s over %d passes (target < %s: %s)",
			msecs(first.seconds/float64(first.n)), msecs(median(later)), passesIn(noTaints[1:]), msecs(targetPass.Seconds()), verdict(median(later) < targetPass.Seconds())),
		fmt.Sprintf("drained seed of %d shoots: %d evictions in %d pass(es) taking %s, the last eviction seen %s after the taint; writes %s",
			b.o.drain, evictions, drainPasses, msecs(drainSecs), secs(w.list()[len(w.list())-1].at.Sub(tainted)), countsLine(ok, refused)))
	b.results[chart] = r
	fmt.Printf("%s: ready %s, leading %s\n  %s\n", chart, secs(r.ready), secs(r.leading), strings.Join(r.lines, "\n  "))
	return nil
}

// passesIn counts the passes in p.
func passesIn(p []pass) int {
	n := 0
	for _, q := range p {
		n += q.n
	}
	return n
}

// measureAnnotator runs graft-capacity-annotator until every seed shows
// its capacity and the shoots on it, then over its steady window, and counts
// its writes to seeds in the API server's audit log over both.
func (b *bench) measureAnnotator(ctx context.Context) error {
	const chart = "graft-capacity-annotator"
	want, err := usageBySeed(ctx, b.l)
	if err != nil {
		return err
	}
	fmt.Printf("%s: writing capacity and usage of %d seeds\n", chart, b.o.seeds)
	d, r, err := b.startMeasured(ctx, chart)
	if err != nil {
		return err
	}
	defer b.stop(d, &r)
	alloc := b.o.allocatable()
	var converged time.Duration
	err = wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 10*time.Minute, true, func(ctx context.Context) (bool, error) {
		if err := d.Proc.Exited(); err != nil {
			return false, err
		}
		list, err := b.l.Graft.CoreV1alpha1().Seeds().List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, s := range list.Items {
			usage, ok := shootsOf(s.Status.Usage)
			capacity, _ := shootsOf(s.Status.Capacity)
			if !ok || usage != want[s.Name] || capacity != alloc {
				return false, nil
			}
		}
		converged = time.Since(d.Started)
		return true, nil
	})
	if err != nil {
		return d.Failed(fmt.Errorf("waiting for every seed's capacity and usage: %w", err))
	}
	if err := b.steadyWindow(ctx, d, &r); err != nil {
		return err
	}
	metric, err := d.Samples(ctx, `graft_capacity_annotator_writes_total{kind="status"}`)
	if err != nil {
		return err
	}
	if err := b.stop(d, &r); err != nil {
		return err
	}
	ok, refused, _, err := daemon.AuditWrites(b.cp.AuditLog, r.auditFrom, serviceAccountUser(chart))
	if err != nil {
		return err
	}
	// Writes to seeds, status or not, accepted or refused: what converging cost.
	seedWrites := 0
	for _, m := range []map[string]int{ok, refused} {
		for k, n := range m {
			if resource := strings.Fields(k)[1]; resource == "seeds" || strings.HasPrefix(resource, "seeds/") {
				seedWrites += n
			}
		}
	}
	perSeed := float64(seedWrites) / float64(b.o.seeds)
	r.lines = append(r.lines,
		fmt.Sprintf("every seed converged %s after the start; %.3f writes per seed (target ≤ %.2f: %s): %d writes to seeds up to the end of its steady window (its own count of status writes: %.0f); writes %s",
			secs(converged), perSeed, targetWritesSeed, verdict(perSeed <= targetWritesSeed), seedWrites, metric[0], countsLine(ok, refused)))
	b.results[chart] = r
	fmt.Printf("%s: ready %s, leading %s, %s\n", chart, secs(r.ready), secs(r.leading), r.lines[0])
	return nil
}

// graftctl runs the graftctl binary against the control plane as its admin.
func (b *bench) graftctl(ctx context.Context, args ...string) error {
	cmd := exec.CommandContext(ctx, filepath.Join(b.binDir, "graftctl"), append([]string{"--kubeconfig", b.cp.Kubeconfig}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("graftctl %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	fmt.Printf("graftctl %s: %s", strings.Join(args, " "), out)
	return nil
}

// serviceAccountUser is the user a daemon's requests carry: its chart's
// ServiceAccount (release name = chart name).
func serviceAccountUser(chart string) string {
	return "system:serviceaccount:" + daemon.ComponentNamespace + ":" + chart
}

// report prints the summary: per daemon, its figures beside the targets,
// then the API server's, and last the line of KiB per shoot.
func (b *bench) report(elapsed time.Duration) {
	o := b.o
	var apiSamples []int64
	for _, r := range b.results {
		apiSamples = append(apiSamples, r.apiKiB)
	}
	var apiEmpty []int64
	for _, r := range b.empty {
		apiEmpty = append(apiEmpty, r.apiKiB)
	}
	apiSteady, apiBase := medianInt(apiSamples), medianInt(apiEmpty)
	_, apiPeak, _ := daemon.ReadMemory(b.cp.APIServerPID())
	etcd, _, _ := daemon.ReadMemory(b.cp.EtcdPID())
	fmt.Println()
	fmt.Printf("seeds %d, shoots %d (%d pending, %d on the drained seed), allocatable %d per seed; run took %v; a shared 2-core machine: compare within one run\n",
		o.seeds, o.shoots, o.pending, o.drain, o.allocatable(), elapsed.Round(time.Second))
	fmt.Printf("steady RSS: the median of VmRSS sampled every %v over a window once the daemon is idle (scheduler, annotator: %v after the work was seen done; descheduler: from the end of its first pass to the end of the %d after it)\n",
		daemon.SamplePeriod, o.window, o.passes)
	perShoot := map[string]float64{}
	for _, chart := range daemons {
		r, ok := b.results[chart]
		if !ok {
			fmt.Printf("%s: no figures on the full landscape (it failed, above)\n", chart)
			continue
		}
		e := b.empty[chart]
		ready := max(r.ready, r.leading)
		limit := min(targetSteadyMiB*1024, r.apiKiB/10)
		above := float64(r.steadyKiB-e.steadyKiB) / float64(o.shoots)
		perShoot[chart] = above
		fmt.Printf("%s: ready %s (CPU until then: the daemon %s, kube-apiserver %s), leading %s (target ≤ %s: %s); steady RSS %s (target < %d MiB and ≤ 1/10 of kube-apiserver's %s: %s), peak %s; empty landscape: ready %s, steady %s; %.2f KiB/shoot, %.2f KiB/shoot above the empty landscape\n",
			chart, secs(r.ready), secs(r.readyCPU), secs(r.apiCPU), secs(r.leading), secs(targetReady), verdict(ready <= targetReady),
			mib(r.steadyKiB), targetSteadyMiB, mib(r.apiKiB), verdict(r.steadyKiB < limit), mib(r.peakKiB),
			secs(e.ready), mib(e.steadyKiB), float64(r.steadyKiB)/float64(o.shoots), above)
		for _, l := range r.lines {
			fmt.Printf("  %s\n", l)
		}
	}
	apiAbove := float64(apiSteady-apiBase) / float64(o.shoots)
	fmt.Printf("kube-apiserver (the reference): steady RSS %s (median over the daemons' steady windows), peak %s, empty landscape %s; %.2f KiB/shoot, %.2f KiB/shoot above the empty landscape; etcd RSS %s\n",
		mib(apiSteady), mib(apiPeak), mib(apiBase), float64(apiSteady)/float64(o.shoots), apiAbove, mib(etcd))
	fmt.Printf("scale %d shoots: scheduler %.2f KiB/shoot, descheduler %.2f KiB/shoot, annotator %.2f KiB/shoot, apiserver %.2f KiB/shoot\n",
		o.shoots, perShoot["graft-scheduler"], perShoot["graft-descheduler"], perShoot["graft-capacity-annotator"], apiAbove)
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "MISSED"
}

func secs(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) }

func msecs(s float64) string { return fmt.Sprintf("%.2f ms", s*1000) }

func mib(kib int64) string { return fmt.Sprintf("%.0f MiB", float64(kib)/1024) }

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

func medianInt(v []int64) int64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// countsLine prints writes by kind, the refused ones apart.
func countsLine(ok, refused map[string]int) string {
	line := func(m map[string]int) string {
		keys := make([]string, 0, len(m))
		total := 0
		for k, n := range m {
			keys = append(keys, k)
			total += n
		}
		sort.Strings(keys)
		parts := make([]string, 0, len(keys))
		for _, k := range keys {
			parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
		}
		return fmt.Sprintf("%d (%s)", total, strings.Join(parts, ", "))
	}
	s := line(ok)
	if len(refused) > 0 {
		s += ", refused " + line(refused)
	}
	return s
}
