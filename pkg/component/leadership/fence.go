package leadership

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/metadata"
	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// ErrFenced is wrapped by every error of a refused write. Callers treat it
// like any transient API error: retry later (by then the replica either
// renewed its lease, or lost it and stopped).
var ErrFenced = errors.New("write fenced")

// IsFenced tells whether err comes from a write the fence refused.
func IsFenced(err error) bool { return errors.Is(err, ErrFenced) }

var (
	refusals = metrics.NewCounterVec(&metrics.CounterOpts{
		Namespace:      "graft",
		Subsystem:      "fence",
		Name:           "refused_writes_total",
		Help:           "Mutating API requests refused because the replica's lease was not renewed recently enough or its informers had not caught up after a gap in renewals.",
		StabilityLevel: metrics.ALPHA,
	}, []string{"component", "reason"})
	registerOnce sync.Once
)

// Reasons of a refusal, the values of the reason label.
const (
	ReasonNotLeading = "not_leading"
	ReasonStale      = "stale_lease"
	ReasonCatchingUp = "catching_up"
)

// Fence tells whether the replica may write. Create one with New. A Fence
// that is never armed (no leader election) always lets writes through, and
// so does a nil Fence.
type Fence struct {
	component string
	clock     clock.PassiveClock
	// list reads a tracked resource from etcd for the catch-up.
	list listFunc

	mu sync.Mutex
	// armed is set when the replica runs under leader election; until then
	// the fence is open.
	armed bool
	// validFor is how long a renewal keeps the fence open.
	validFor time.Duration
	// renewed is when the last successful renewal was sent (zero: not leading).
	renewed time.Time
	// catchingUp is set from a renewal after a gap until the informers have
	// caught up; gap counts the gaps, so that a stale catch-up does not open
	// the fence.
	catchingUp bool
	gap        uint64
	// ctx bounds the catch-ups; set by Start.
	ctx     context.Context
	tracked []tracked
}

// NewFence returns an open fence for component. lister is used to learn what the
// tracked informers must have seen after a gap (reads are never fenced).
func NewFence(component string, lister metadata.Interface) *Fence {
	registerOnce.Do(func() { legacyregistry.MustRegister(refusals) })
	// Zero series from the start, so that rate() and alerts see the first
	// refusal.
	// (component.ZeroSeries does this elsewhere; package component imports
	// this one.)
	for _, reason := range []string{ReasonNotLeading, ReasonStale, ReasonCatchingUp} {
		refusals.WithLabelValues(component, reason).Add(0)
	}
	return &Fence{component: component, clock: clock.RealClock{}, list: metadataLister(lister, catchUpPageSize)}
}

// Arm closes the fence until the first renewal: from now on a write passes
// only within validFor of the start of the last successful renewal. With a
// lease of leaseDuration, validFor must be shorter by a margin covering the
// clock drift between replicas; graft uses the renew deadline. ctx bounds the
// catch-ups the fence starts.
func (f *Fence) Arm(ctx context.Context, validFor time.Duration) {
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.armed, f.validFor, f.ctx = true, validFor, ctx
}

// Renewed records a successful acquisition or renewal of the lease whose
// request was sent at start. If the previous renewal no longer kept the fence
// open (or there was none), the replica may have missed changes: the fence
// stays closed until the tracked informers have caught up.
func (f *Fence) Renewed(start time.Time) {
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.armed {
		return
	}
	gap := f.renewed.IsZero() || start.Sub(f.renewed) >= f.validFor
	if start.After(f.renewed) {
		f.renewed = start
	}
	if !gap {
		return
	}
	f.gap++
	f.catchingUp = true
	go f.catchUp(f.ctx, f.gap, f.renewed)
}

// Lost records that the replica released or lost the lease.
func (f *Fence) Lost() {
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.renewed = time.Time{}
	f.gap++
}

// Check returns nil when a write may be sent now, and otherwise an error
// wrapping ErrFenced that says why.
func (f *Fence) Check() error {
	_, err := f.check()
	return err
}

func (f *Fence) check() (reason string, err error) {
	if f == nil {
		return "", nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.armed {
		return "", nil
	}
	if f.renewed.IsZero() {
		return ReasonNotLeading, fmt.Errorf("%w: %s does not hold its lease", ErrFenced, f.component)
	}
	if age := f.clock.Since(f.renewed); age >= f.validFor {
		return ReasonStale, fmt.Errorf("%w: %s last renewed its lease %s ago, writes are allowed only within %s of a renewal",
			ErrFenced, f.component, age.Round(time.Millisecond), f.validFor)
	}
	if f.catchingUp {
		return ReasonCatchingUp, fmt.Errorf("%w: %s is waiting for its informers to catch up after a gap in lease renewals", ErrFenced, f.component)
	}
	return "", nil
}

// Wait blocks until a write may be sent (the lease acquired and the
// informers caught up) or ctx ends, whose error it then returns. A leader
// waits for it before it starts working, so that nothing it does on its
// first view is refused (Events, which are not retried, would be lost).
func (f *Fence) Wait(ctx context.Context) error {
	if f.Check() == nil {
		return nil
	}
	return wait.PollUntilContextCancel(ctx, catchUpPoll, false, func(context.Context) (bool, error) {
		return f.Check() == nil, nil
	})
}

// Wrap returns a transport that sends reads through next at once and
// mutating requests only while the fence is open.
func (f *Fence) Wrap(next http.RoundTripper) http.RoundTripper {
	return &transport{fence: f, next: next}
}

type transport struct {
	fence *Fence
	next  http.RoundTripper
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if mutating(req.Method) {
		if reason, err := t.fence.check(); err != nil {
			refusals.WithLabelValues(t.fence.component, reason).Inc()
			klog.FromContext(req.Context()).Info("Write refused", "method", req.Method, "path", req.URL.Path, "reason", err.Error())
			if req.Body != nil {
				_, _ = io.Copy(io.Discard, req.Body)
				_ = req.Body.Close()
			}
			return nil, err
		}
	}
	return t.next.RoundTrip(req)
}

// WrappedRoundTripper lets client-go's debugging and connection management
// see the transport underneath.
func (t *transport) WrappedRoundTripper() http.RoundTripper { return t.next }

func mutating(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	return true
}
