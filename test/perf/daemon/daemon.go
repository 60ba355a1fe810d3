package daemon

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/graft-dev/graft/pkg/controlplane"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/test/charts"
	"github.com/graft-dev/graft/test/framework"
)

// ComponentNamespace holds the charts' ServiceAccounts, as in an installation.
const ComponentNamespace = "graft-system"

// daemon is one graft daemon running as its binary, with the identity, RBAC
// and configuration its chart gives it (charts.RunAsChart), its memory
// sampled from /proc.
type Daemon struct {
	Chart   string
	Proc    *controlplane.Process
	Started time.Time
	health  string
	metrics string
	dir     string
	Mem     *MemSampler

	stopOnce sync.Once
	peakKiB  int64
	stopErr  error
}

// Start renders chart with the given values, starts its binary from
// binDir and begins sampling its memory. The caller stops it.
func Start(ctx context.Context, admin *rest.Config, binDir, dir, chart string, set, setJSON []string) (*Daemon, error) {
	ddir, err := os.MkdirTemp(dir, chart+"-")
	if err != nil {
		return nil, err
	}
	prepared, err := charts.PrepareDaemon(ctx, admin, ddir, chart, charts.TemplateOptions{Release: chart, Namespace: ComponentNamespace, Set: set, SetJSON: setJSON})
	if err != nil {
		return nil, err
	}
	d := &Daemon{Chart: chart, health: prepared.HealthAddr, metrics: prepared.MetricsAddr, dir: ddir}
	d.Started = time.Now()
	d.Proc, err = controlplane.StartProcess(ddir, chart, filepath.Join(binDir, chart), "--config", prepared.Config)
	if err != nil {
		return nil, err
	}
	d.Mem = SampleMemory(d.Proc.Pid())
	return d, nil
}

// waitReady waits for /readyz (informers synced, leader election healthy)
// and returns the time from the process's start.
func (d *Daemon) WaitReady(ctx context.Context) (time.Duration, error) {
	if err := d.Proc.WaitHTTP(ctx, "http://"+d.health+"/readyz", 10*time.Minute); err != nil {
		return 0, fmt.Errorf("%s: %w (log in %s)", d.Chart, err, d.LogDir())
	}
	return time.Since(d.Started), nil
}

// waitLeading waits until the daemon's Lease garden/<chart> names a holder
// that acquired it after the process started, and returns the time from the
// process's start to that observation.
func (d *Daemon) WaitLeading(ctx context.Context, kube kubernetes.Interface) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	w, err := kube.CoordinationV1().Leases(v1alpha1.GardenNamespace).Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + d.Chart})
	if err != nil {
		return 0, err
	}
	defer w.Stop()
	// The watch starts with the Lease as it is (an ADDED event), if it exists.
	for {
		if lease, err := kube.CoordinationV1().Leases(v1alpha1.GardenNamespace).Get(ctx, d.Chart, metav1.GetOptions{}); err == nil {
			s := lease.Spec
			// acquireTime has microseconds; the process started a little before.
			if s.HolderIdentity != nil && *s.HolderIdentity != "" && s.AcquireTime != nil && !s.AcquireTime.Time.Before(d.Started.Truncate(time.Second)) {
				return time.Since(d.Started), nil
			}
		} else if !apierrors.IsNotFound(err) {
			return 0, err
		}
		if err := d.Proc.Exited(); err != nil {
			return 0, fmt.Errorf("%s: %w", d.Chart, err)
		}
		select {
		case _, ok := <-w.ResultChan():
			if !ok {
				return 0, fmt.Errorf("%s: the watch of its Lease ended", d.Chart)
			}
		case <-ctx.Done():
			return 0, fmt.Errorf("%s did not take its Lease: %w", d.Chart, ctx.Err())
		}
	}
}

func (d *Daemon) LogDir() string { return d.dir }

// failed adds the last lines of the daemon's log to err.
func (d *Daemon) Failed(err error) error {
	path := filepath.Join(d.dir, d.Chart+".log")
	data, rerr := os.ReadFile(path)
	if rerr != nil {
		return fmt.Errorf("%w (its log: %v)", err, rerr)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	return fmt.Errorf("%w\nthe last lines of %s:\n%s", err, path, strings.Join(lines[max(0, len(lines)-30):], "\n"))
}

// samples reads the named samples from one scrape of the daemon's /metrics;
// a series not served yet (a vector without that label set) reads 0.
func (d *Daemon) Samples(ctx context.Context, names ...string) ([]float64, error) {
	body, err := framework.ScrapeMetrics(ctx, "http://"+d.metrics+"/metrics")
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(names))
	for i, name := range names {
		if v, err := framework.MetricSample(body, d.Chart, name); err == nil {
			out[i] = v
		}
	}
	return out, nil
}

// stop stops the daemon and its sampling and returns its peak RSS (VmHWM,
// read just before the stop) in KiB; stopping again returns the same.
func (d *Daemon) Stop() (peakKiB int64, err error) {
	d.stopOnce.Do(func() {
		_, d.peakKiB, _ = ReadMemory(d.Proc.Pid())
		d.Mem.Stop()
		d.stopErr = d.Proc.Stop()
	})
	return d.peakKiB, d.stopErr
}

// MemSampler reads a process's VmRSS from /proc every SamplePeriod.
type MemSampler struct {
	pid    int
	cancel chan struct{}
	done   chan struct{}

	mu      sync.Mutex
	samples []memSample
}

type memSample struct {
	at  time.Time
	kib int64
}

// SamplePeriod is how often a MemSampler reads.
const SamplePeriod = 200 * time.Millisecond

func SampleMemory(pid int) *MemSampler {
	m := &MemSampler{pid: pid, cancel: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(m.done)
		t := time.NewTicker(SamplePeriod)
		defer t.Stop()
		for {
			if rss, _, err := ReadMemory(pid); err == nil {
				m.mu.Lock()
				m.samples = append(m.samples, memSample{at: time.Now(), kib: rss})
				m.mu.Unlock()
			}
			select {
			case <-m.cancel:
				return
			case <-t.C:
			}
		}
	}()
	return m
}

func (m *MemSampler) Stop() {
	select {
	case <-m.cancel:
	default:
		close(m.cancel)
	}
	<-m.done
}

// median is the median VmRSS (KiB) of the samples taken in [from, to].
func (m *MemSampler) Median(from, to time.Time) int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	var in []int64
	for _, s := range m.samples {
		if !s.at.Before(from) && !s.at.After(to) {
			in = append(in, s.kib)
		}
	}
	if len(in) == 0 {
		return 0
	}
	slices.Sort(in)
	return in[len(in)/2]
}

// ReadMemory returns a process's VmRSS and VmHWM (peak RSS) in KiB.
func ReadMemory(pid int) (rss, hwm int64, err error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || (k != "VmRSS" && k != "VmHWM") {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("/proc/%d/status: %s: %w", pid, k, err)
		}
		if k == "VmRSS" {
			rss = n
		} else {
			hwm = n
		}
	}
	return rss, hwm, sc.Err()
}

// clockTicks is the unit of the CPU times in /proc/<pid>/stat (USER_HZ),
// 100 on every Linux architecture graft runs on.
const clockTicks = 100

// ReadCPU returns the CPU time (user and system) a process has used.
func ReadCPU(pid int) (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name, in parentheses, may hold spaces: the fields that
	// follow it are counted from its closing parenthesis. utime and stime
	// are fields 14 and 15 of the line, 12 and 13 after the name.
	i := strings.LastIndexByte(string(data), ')')
	fields := strings.Fields(string(data[i+1:]))
	if i < 0 || len(fields) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	var ticks int64
	for _, f := range fields[11:13] {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / clockTicks, nil
}

// ReadMachineCPU returns the CPU time all processors of the machine have
// spent busy and in all (idle and waiting for I/O included), from
// /proc/stat: the share of the two over a phase tells whether the machine
// was saturated.
func ReadMachineCPU() (busy, total time.Duration, err error) {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, err
	}
	line, _, _ := strings.Cut(string(data), "\n")
	fields := strings.Fields(line)
	if len(fields) < 8 || fields[0] != "cpu" {
		return 0, 0, fmt.Errorf("/proc/stat: unexpected first line %q", line)
	}
	// user nice system idle iowait irq softirq steal ...
	for i, f := range fields[1:min(len(fields), 9)] {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("/proc/stat: %w", err)
		}
		d := time.Duration(n) * time.Second / clockTicks
		total += d
		if i != 3 && i != 4 {
			busy += d
		}
	}
	return busy, total, nil
}
