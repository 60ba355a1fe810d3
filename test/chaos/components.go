package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/graft-dev/graft/pkg/controlplane"

	"k8s.io/client-go/rest"

	"github.com/graft-dev/graft/test/charts"
)

// componentNamespace holds the charts' ServiceAccounts, as in an installation.
const componentNamespace = "graft-system"

// leaseTimings are the chart defaults, sane for a loaded two-core machine.
var leaseTimings = []string{
	"config.leaderElection.leaseDuration=15s",
	"config.leaderElection.renewDeadline=10s",
	"config.leaderElection.retryPeriod=2s",
	"config.logging.verbosity=2",
}

const leaseDuration = 15 * time.Second

// chartValues are the extra values of each chart: the descheduler passes
// often and evicts quickly, with every plugin.
var chartValues = map[string]struct{ set, setJSON []string }{
	"graft-scheduler":          {},
	"graft-capacity-annotator": {},
	"graft-descheduler": {
		// The run's shoots are one project: a budget of one move in flight
		// would turn every evacuation into a queue the checker's bound does
		// not allow for; the integration tests judge the project budget.
		set: []string{"config.interval=5s", "config.evictionRate=20", "config.evictionBurst=10",
			"config.maxEvictionsPerSeed=50", "config.maxEvictionsTotal=200", "config.maxPendingEvicted=50",
			"config.maxMovesInFlightPerProject=0"},
		// The improving plugins run too: whatever they move must not move
		// again within their cool-down (the checker's ImprovedInCoolDown).
		setJSON: []string{`config.plugins=[{"name":"NoExecuteTaints","enabled":true},{"name":"OverCapacity","enabled":true},` +
			`{"name":"ComeHome","enabled":true},{"name":"Rebalance","enabled":true,"args":{"highUtilisation":80,"lowUtilisation":50}}]`},
	},
}

var componentCharts = []string{"graft-scheduler", "graft-descheduler", "graft-capacity-annotator"}

// exit is how a replica's process ended.
type exit struct {
	At     time.Time
	Err    error
	Killed bool   // by the run's SIGKILL
	Last   string // the last line of its log
}

// replica is one replica of a daemon; it is started again after every exit.
type replica struct {
	Name   string // chart-instance
	Chart  string
	bin    string
	config string
	dir    string
	log    string
	health string

	mu      sync.Mutex
	proc    *controlplane.Process
	killed  bool
	stopped bool // SIGSTOPped now
	starts  int
}

// buildBinaries compiles the daemons into dir.
func buildBinaries(ctx context.Context, dir string) error {
	_, err := controlplane.BuildBinaries(ctx, dir, componentCharts...)
	return err
}

// prepareReplica renders the chart, applies its ServiceAccount and RBAC and
// writes the replica's kubeconfig (that ServiceAccount's token) and config.
// extra are further values (the Gardener mode's).
func prepareReplica(ctx context.Context, admin *rest.Config, binDir, dir, chart string, instance int, extra []string) (*replica, error) {
	r := &replica{Name: fmt.Sprintf("%s-%d", chart, instance), Chart: chart, bin: filepath.Join(binDir, chart)}
	rdir := filepath.Join(dir, r.Name)
	if err := os.MkdirAll(rdir, 0o755); err != nil {
		return nil, err
	}
	set := append(append(append([]string{}, leaseTimings...), chartValues[chart].set...), extra...)
	d, err := charts.PrepareDaemon(ctx, admin, rdir, chart, charts.TemplateOptions{Release: chart, Namespace: componentNamespace, Set: set, SetJSON: chartValues[chart].setJSON})
	if err != nil {
		return nil, err
	}
	r.health, r.config = d.HealthAddr, d.Config
	r.dir, r.log = dir, filepath.Join(dir, r.Name+".log")
	return r, nil
}

// start starts the process; its output is appended to the replica's log.
func (r *replica) start() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.starts++
	f, err := os.OpenFile(r.log, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	fmt.Fprintf(f, "===== chaos: start %d of %s at %s\n", r.starts, r.Name, time.Now().UTC().Format(time.RFC3339Nano))
	f.Close()
	proc, err := controlplane.StartProcess(r.dir, r.Name, r.bin, "--config", r.config)
	if err != nil {
		return err
	}
	r.proc, r.killed, r.stopped = proc, false, false
	return nil
}

// wait returns how the current process ended, once it has.
func (r *replica) wait() exit {
	r.mu.Lock()
	proc := r.proc
	r.mu.Unlock()
	state := proc.Wait()
	r.mu.Lock()
	killed := r.killed
	r.mu.Unlock()
	var err error
	if !state.Success() {
		err = fmt.Errorf("%s", state.String())
	}
	return exit{At: time.Now(), Err: err, Killed: killed, Last: lastLine(r.log)}
}

func (r *replica) signal(sig syscall.Signal) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.proc == nil || !r.proc.Running() {
		return fmt.Errorf("%s is not running", r.Name)
	}
	switch sig {
	case syscall.SIGKILL:
		r.killed = true
	case syscall.SIGSTOP:
		r.stopped = true
	case syscall.SIGCONT:
		r.stopped = false
	}
	return r.proc.Signal(sig)
}

// running tells whether the current process has not exited.
func (r *replica) running() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.proc != nil && r.proc.Running()
}

// waitReady polls /readyz until it answers 200 or the timeout passes.
func (r *replica) waitReady(ctx context.Context, timeout time.Duration) error {
	r.mu.Lock()
	proc := r.proc
	r.mu.Unlock()
	if err := proc.WaitHTTP(ctx, "http://"+r.health+"/readyz", timeout); err != nil {
		return fmt.Errorf("%s: %w", r.Name, err)
	}
	return nil
}

// identityIn tells whether the replica's current process logged the lease
// identity id, i.e. the Lease holder is this process.
func (r *replica) identityIn(id string) bool {
	data, err := os.ReadFile(r.log)
	if err != nil || id == "" {
		return false
	}
	s := string(data)
	if i := strings.LastIndex(s, "===== chaos: start "); i >= 0 {
		s = s[i:]
	}
	// Every line of the elector's logger names the replica's own identity
	// this way; a standby's lines name the leader's as leader="...".
	return strings.Contains(s, `identity="`+id+`"`)
}

func lastLine(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	return lines[len(lines)-1]
}

// paused tells whether the process is SIGSTOPped now.
func (r *replica) paused() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stopped
}
