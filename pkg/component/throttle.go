package component

import (
	"context"
	"sync"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"
	"k8s.io/component-base/metrics"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// throttleThreshold is the wait for the client-side rate limiter from which
// a request counts as throttled, as for client-go, which logs such waits at
// most every ten seconds but names neither the component nor its limits nor
// what to change, and shorter ones only from verbosity 3.
const throttleThreshold = time.Second

// throttleQuietPeriod is how long no request may have been throttled before
// the next throttled one is logged again. Sustained throttling logs once (the
// counter says how often it goes on); throttling that comes back after it
// stopped, as with a drain of one seed after another, is a new episode the
// operator should see in the log.
const throttleQuietPeriod = 10 * time.Minute

// clientMetrics are the metrics of the clients' rate limiters, by component
// and client (graft, kubernetes, dynamic, lease, metadata).
type clientMetrics struct {
	waits     *metrics.HistogramVec
	throttled *metrics.CounterVec
}

// clientMetricsFor gives the clients' metrics: NewClients uses the process's,
// which /metrics serves.
var clientMetricsFor = MetricsFor(func() (*clientMetrics, []metrics.Registerable) {
	m := &clientMetrics{
		waits: NewHistogramVec("graft_client_throttled_seconds",
			"Time each API request waited for the client-side rate limiter (clientConnection.qps and burst), by component and client.",
			[]float64{0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}, "component", "client"),
		throttled: NewCounterVec("graft_client_throttled_requests_total",
			"API requests the client-side rate limiter delayed by more than a second, by component and client.",
			"component", "client"),
	}
	return m, []metrics.Registerable{m.waits, m.throttled}
})

// throttleReporter observes the rate limiters of one component's clients:
// every wait goes into the metrics, and a wait over throttleThreshold is
// logged at default verbosity once per episode (see throttleQuietPeriod).
type throttleReporter struct {
	component string
	metrics   *clientMetrics
	clock     clock.PassiveClock
	logger    klog.Logger

	mu sync.Mutex
	// last is when a request was last throttled; zero before the first.
	last time.Time
}

func newThrottleReporter(component string, m *clientMetrics, clk clock.PassiveClock, logger klog.Logger) *throttleReporter {
	return &throttleReporter{component: component, metrics: m, clock: clk, logger: logger}
}

// limit returns a copy of cfg whose requests wait for a rate limiter of
// their own, built from cfg's QPS and burst as client-go builds it (0 means
// client-go's defaults, a negative QPS no limit), or cfg's own limiter,
// observed by r. Each client gets its own, as with client-go: a busy graft
// client must not hold back the Lease's renewals.
func (r *throttleReporter) limit(cfg *rest.Config, client string) *rest.Config {
	out := rest.CopyConfig(cfg)
	qps, burst := out.QPS, out.Burst
	if qps == 0 {
		qps = rest.DefaultQPS
	}
	if burst == 0 {
		burst = rest.DefaultBurst
	}
	inner := out.RateLimiter
	if inner == nil {
		if qps < 0 {
			return out
		}
		inner = flowcontrol.NewTokenBucketRateLimiter(qps, burst)
	}
	// A zero series from the start, so that rate() and alerts see the
	// first throttled request.
	r.metrics.throttled.WithLabelValues(r.component, client).Add(0)
	out.RateLimiter = &observedLimiter{RateLimiter: inner, reporter: r, client: client, qps: qps, burst: burst}
	return out
}

// observe records one request's wait.
func (r *throttleReporter) observe(client string, qps float32, burst int, waited time.Duration) {
	r.metrics.waits.WithLabelValues(r.component, client).Observe(waited.Seconds())
	if waited <= throttleThreshold {
		return
	}
	r.metrics.throttled.WithLabelValues(r.component, client).Inc()
	now := r.clock.Now()
	r.mu.Lock()
	report := r.last.IsZero() || now.Sub(r.last) >= throttleQuietPeriod
	r.last = now
	r.mu.Unlock()
	if report {
		r.logger.Info("Client-side rate limiting delayed an API request; if this persists, raise clientConnection.qps and clientConnection.burst",
			"component", r.component, "client", client, "delay", waited.Round(time.Millisecond), "qps", qps, "burst", burst,
			"nextReportAfterQuiet", throttleQuietPeriod)
	}
}

// observedLimiter is a client's rate limiter whose waits are reported.
type observedLimiter struct {
	flowcontrol.RateLimiter
	reporter *throttleReporter
	client   string
	qps      float32
	burst    int
}

// Wait is what client-go's requests call before they are sent.
func (l *observedLimiter) Wait(ctx context.Context) error {
	start := l.reporter.clock.Now()
	err := l.RateLimiter.Wait(ctx)
	l.reporter.observe(l.client, l.qps, l.burst, l.reporter.clock.Since(start))
	return err
}

// Accept is Wait without a context, for callers of the older interface.
func (l *observedLimiter) Accept() {
	start := l.reporter.clock.Now()
	l.RateLimiter.Accept()
	l.reporter.observe(l.client, l.qps, l.burst, l.reporter.clock.Since(start))
}
