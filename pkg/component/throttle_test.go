package component

import (
	"context"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"
	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/testutil"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/graft-dev/graft/pkg/component/componenttest"
)

// scriptedLimiter is a rate limiter whose every Wait takes the next of its
// delays on a fake clock.
type scriptedLimiter struct {
	flowcontrol.RateLimiter
	clock  *clocktesting.FakeClock
	delays []time.Duration
}

func (l *scriptedLimiter) Wait(context.Context) error {
	d := l.delays[0]
	l.delays = l.delays[1:]
	l.clock.Step(d)
	return nil
}

// logLines collects what a logger writes.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) add(prefix, args string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, args)
}

func (l *logLines) get() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines...)
}

func TestThrottleReporter(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Unix(1000, 0))
	m, err := clientMetricsFor(metrics.NewKubeRegistry())
	if err != nil {
		t.Fatal(err)
	}
	var logs logLines
	r := newThrottleReporter("graft-test", m, clk, funcr.New(logs.add, funcr.Options{}))
	inner := &scriptedLimiter{clock: clk}
	cfg := r.limit(&rest.Config{QPS: 2, Burst: 3, RateLimiter: inner}, "graft")
	wait := func(d time.Duration) {
		t.Helper()
		inner.delays = append(inner.delays, d)
		if err := cfg.RateLimiter.Wait(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	throttled := func() float64 {
		t.Helper()
		v, err := testutil.GetCounterMetricValue(m.throttled.WithLabelValues("graft-test", "graft"))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}

	wait(0)
	wait(200 * time.Millisecond)
	wait(time.Second) // not more than a second
	if n := throttled(); n != 0 || len(logs.get()) != 0 {
		t.Fatalf("waits up to a second: %v throttled, logged %q; want none", n, logs.get())
	}
	wait(1500 * time.Millisecond)
	if n, l := throttled(), logs.get(); n != 1 || len(l) != 1 {
		t.Fatalf("a wait of 1.5s: %v throttled, logged %q; want 1 and one line", n, l)
	}
	for _, want := range []string{`"component"="graft-test"`, `"client"="graft"`, `"delay"="1.5s"`, `"qps"=2`, `"burst"=3`, "clientConnection.qps", "clientConnection.burst"} {
		if !strings.Contains(logs.get()[0], want) {
			t.Errorf("the log line lacks %s: %s", want, logs.get()[0])
		}
	}

	// Throttled on and off, never quiet for the quiet period: no new line.
	for range 5 {
		clk.Step(throttleQuietPeriod / 2)
		wait(3 * time.Second)
	}
	if n, l := throttled(), logs.get(); n != 6 || len(l) != 1 {
		t.Fatalf("sustained throttling: %v throttled, %d lines logged; want 6 and still one", n, len(l))
	}
	// Quiet for the period (requests pass without waiting): the next episode is logged.
	wait(0)
	clk.Step(throttleQuietPeriod)
	wait(2 * time.Second)
	if n, l := throttled(), logs.get(); n != 7 || len(l) != 2 {
		t.Fatalf("throttled again after %v of quiet: %v throttled, %d lines; want 7 and a second line", throttleQuietPeriod, n, len(l))
	}

	count, err := testutil.GetHistogramMetricCount(m.waits.WithLabelValues("graft-test", "graft"))
	if err != nil {
		t.Fatal(err)
	}
	if count != 11 {
		t.Errorf("graft_client_throttled_seconds counted %d waits, want every one (11)", count)
	}
}

// TestThrottleLimitBuildsClientGosLimiter: the limiter is the one client-go
// would build from QPS and burst, defaults and "no limit" included.
func TestThrottleLimitBuildsClientGosLimiter(t *testing.T) {
	m, err := clientMetricsFor(metrics.NewKubeRegistry())
	if err != nil {
		t.Fatal(err)
	}
	r := newThrottleReporter("graft-test", m, clocktesting.NewFakeClock(time.Unix(0, 0)), funcr.New(func(string, string) {}, funcr.Options{}))
	for _, tc := range []struct {
		qps       float32
		burst     int
		wantQPS   float32
		wantBurst int
	}{
		{100, 130, 100, 130},
		{0, 0, rest.DefaultQPS, rest.DefaultBurst},
	} {
		cfg := r.limit(&rest.Config{QPS: tc.qps, Burst: tc.burst}, "graft")
		l, ok := cfg.RateLimiter.(*observedLimiter)
		if !ok {
			t.Fatalf("qps %v: the limiter is a %T, want an observed one", tc.qps, cfg.RateLimiter)
		}
		if l.QPS() != tc.wantQPS || l.qps != tc.wantQPS || l.burst != tc.wantBurst {
			t.Errorf("qps %v burst %d: limiter of qps %v (reported %v, burst %d), want %v and %d", tc.qps, tc.burst, l.QPS(), l.qps, l.burst, tc.wantQPS, tc.wantBurst)
		}
	}
	if cfg := r.limit(&rest.Config{QPS: -1}, "graft"); cfg.RateLimiter != nil {
		t.Errorf("qps -1: limiter %T, want none (no limit)", cfg.RateLimiter)
	}
}

// TestNewClientsLimitsEachClient: every client waits for a limiter of its
// own, so that a busy graft client does not hold back the Lease renewals.
func TestNewClientsLimitsEachClient(t *testing.T) {
	c, err := NewClients(&rest.Config{Host: "https://127.0.0.1:6443", QPS: 10, Burst: 20}, "graft-test")
	if err != nil {
		t.Fatal(err)
	}
	limiters := map[string]flowcontrol.RateLimiter{
		"graft":      c.Graft.CoreV1alpha1().RESTClient().GetRateLimiter(),
		"kubernetes": c.Kubernetes.CoreV1().RESTClient().GetRateLimiter(),
		"lease":      c.Lease.CoordinationV1().RESTClient().GetRateLimiter(),
	}
	seen := map[flowcontrol.RateLimiter]string{}
	for name, l := range limiters {
		o, ok := l.(*observedLimiter)
		if !ok || o.client != name {
			t.Errorf("%s client: limiter %T %+v, want one observed as %q", name, l, l, name)
			continue
		}
		if other, dup := seen[o.RateLimiter]; dup {
			t.Errorf("the %s and %s clients share one token bucket", name, other)
		}
		seen[o.RateLimiter] = name
	}
}

// TestClientMetricsAsDeclared pins the clients' metrics as /metrics shows
// them, which docs/operations.md and alerts on throttling rely on.
func TestClientMetricsAsDeclared(t *testing.T) {
	reg := metrics.NewKubeRegistry()
	m, err := clientMetricsFor(reg)
	if err != nil {
		t.Fatal(err)
	}
	m.waits.WithLabelValues("c", "graft").Observe(1)
	m.throttled.WithLabelValues("c", "graft").Inc()
	want := map[string]string{
		"graft_client_throttled_seconds":        `HISTOGRAM [client component] [0.005 0.025 0.1 0.25 0.5 1 2.5 5 10 30 60] "[ALPHA] Time each API request waited for the client-side rate limiter (clientConnection.qps and burst), by component and client."`,
		"graft_client_throttled_requests_total": `COUNTER [client component] [] "[ALPHA] API requests the client-side rate limiter delayed by more than a second, by component and client."`,
	}
	got, err := componenttest.MetricDeclarations(reg)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(got, want) {
		t.Errorf("metrics\n  %v\nwant\n  %v", got, want)
	}
}
