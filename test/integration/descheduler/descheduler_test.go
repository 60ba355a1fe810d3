//go:build integration

package descheduler

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/graftctl/get"
	"github.com/graft-dev/graft/test/framework"
	"github.com/graft-dev/graft/test/integration/descheduler/fixture"
)

func TestMain(m *testing.M) { framework.Main(m) }

var drainTaint = v1alpha1.SeedTaint{Key: v1alpha1.SeedTaintUnschedulable, Effect: v1alpha1.TaintEffectNoExecute}

// setup creates a landscape named after the test and removes it afterwards.
func setup(t *testing.T, name string) (context.Context, *framework.Env, *fixture.Landscape) {
	t.Helper()
	env := framework.Shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	l, err := fixture.New(ctx, env.Config(), name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := l.Delete(context.Background()); err != nil {
			t.Logf("cleaning up: %v", err)
		}
	})
	return ctx, env, l
}

func must[T any](t *testing.T) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// startDescheduler runs a descheduler for the test with a lease of its own.
func startDescheduler(t *testing.T, ctx context.Context, env *framework.Env, lease, identity string, mutate func(*configv1alpha1.DeschedulerConfiguration)) *fixture.Component {
	t.Helper()
	return startDeschedulerWith(t, ctx, env.Config(), lease, identity, mutate)
}

func startDeschedulerWith(t *testing.T, ctx context.Context, restConfig *rest.Config, lease, identity string, mutate func(*configv1alpha1.DeschedulerConfiguration)) *fixture.Component {
	t.Helper()
	cfg, err := fixture.DeschedulerConfig(lease, mutate)
	if err != nil {
		t.Fatal(err)
	}
	c := fixture.StartDescheduler(ctx, restConfig, cfg, identity)
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Errorf("descheduler %s: %v", identity, err)
		}
	})
	return c
}

func startScheduler(t *testing.T, ctx context.Context, env *framework.Env, lease string) {
	t.Helper()
	c, err := fixture.StartScheduler(ctx, env.Config(), lease)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Errorf("scheduler: %v", err)
		}
	})
}

// fast is a configuration for tests that are not about the limits.
func fast(c *configv1alpha1.DeschedulerConfiguration) {
	c.EvictionRate = ptr.To(0.0)
	c.MaxEvictionsPerSeed = ptr.To[int32](0)
	c.MaxEvictionsTotal = ptr.To[int32](0)
	c.MaxPendingEvicted = ptr.To[int32](0)
}

func shootsByName(t *testing.T, ctx context.Context, l *fixture.Landscape) map[string]v1alpha1.Shoot {
	t.Helper()
	out := map[string]v1alpha1.Shoot{}
	for _, s := range must[[]v1alpha1.Shoot](t)(l.Shoots(ctx)) {
		out[s.Name] = s
	}
	return out
}

// eventually polls cond every 100ms until it holds or the timeout passes.
func eventually(t *testing.T, ctx context.Context, timeout time.Duration, what string, cond func() (bool, error)) {
	t.Helper()
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, timeout, true, func(context.Context) (bool, error) { return cond() })
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// recorder watches the landscape's shoots and keeps every spec.seedName each
// shoot had, with times, so that tests can check what happened in between.
type recorder struct {
	mu      sync.Mutex
	history map[string][]placement
	// maxUnbound is the largest number of evicted shoots without a seed seen at once.
	maxUnbound int
	unbound    map[string]bool
	evictions  []time.Time
}

type placement struct {
	seed string
	at   time.Time
}

func record(t *testing.T, ctx context.Context, l *fixture.Landscape) *recorder {
	t.Helper()
	r := &recorder{history: map[string][]placement{}, unbound: map[string]bool{}}
	list := must[[]v1alpha1.Shoot](t)(l.Shoots(ctx))
	rv := ""
	for i := range list {
		r.observe(&list[i])
	}
	ll, err := l.Graft.CoreV1alpha1().Shoots(l.Name).List(ctx, metav1.ListOptions{ResourceVersion: "0", Limit: 1})
	if err == nil {
		rv = ll.ResourceVersion
	}
	w, err := l.Graft.CoreV1alpha1().Shoots(l.Name).Watch(ctx, metav1.ListOptions{ResourceVersion: rv})
	if err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithCancel(ctx)
	t.Cleanup(cancel)
	go func() {
		defer w.Stop()
		for {
			select {
			case <-wctx.Done():
				return
			case ev, ok := <-w.ResultChan():
				if !ok {
					return
				}
				if s, ok := ev.Object.(*v1alpha1.Shoot); ok && ev.Type != watch.Deleted {
					r.observe(s)
				}
			}
		}
	}()
	return r
}

func (r *recorder) observe(s *v1alpha1.Shoot) {
	r.mu.Lock()
	defer r.mu.Unlock()
	seed := fixture.Of(s)
	h := r.history[s.Name]
	if len(h) > 0 && h[len(h)-1].seed == seed {
		return
	}
	now := time.Now()
	r.history[s.Name] = append(h, placement{seed: seed, at: now})
	_, evicted := s.Annotations[v1alpha1.AnnotationDescheduledFrom]
	if seed == "" && evicted && len(h) > 0 {
		r.evictions = append(r.evictions, now)
	}
	if seed == "" && evicted {
		r.unbound[s.Name] = true
	} else {
		delete(r.unbound, s.Name)
	}
	r.maxUnbound = max(r.maxUnbound, len(r.unbound))
}

func (r *recorder) seeds(name string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, p := range r.history[name] {
		out = append(out, p.seed)
	}
	return out
}

func (r *recorder) evictedAt(name string) time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, p := range r.history[name] {
		if p.seed == "" {
			return p.at
		}
	}
	return time.Time{}
}

// TestNoExecuteTaint: the taint evicts exactly the shoots that do not
// tolerate it, the scheduler places them elsewhere and never back (no
// ping-pong), shoots tolerating it stay, and tolerationSeconds delays the
// eviction by the right time.
func TestNoExecuteTaint(t *testing.T) {
	ctx, env, l := setup(t, "noexec")
	must[*v1alpha1.Seed](t)(l.Seed(ctx, "a", -1))
	must[*v1alpha1.Seed](t)(l.Seed(ctx, "b", -1))
	shoots := []*v1alpha1.Shoot{l.NewShoot("plain-1", "a"), l.NewShoot("plain-2", "a"), l.NewShoot("plain-3", "a"), l.NewShoot("forever", "a"), l.NewShoot("limited", "a"), l.NewShoot("other-key", "a")}
	shoots[3].Spec.Tolerations = []v1alpha1.Toleration{{Key: v1alpha1.SeedTaintUnschedulable}}
	shoots[4].Spec.Tolerations = []v1alpha1.Toleration{{Key: v1alpha1.SeedTaintUnschedulable, Effect: v1alpha1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](4)}}
	shoots[5].Spec.Tolerations = []v1alpha1.Toleration{{Key: "something-else"}}
	if err := l.CreateShoots(ctx, shoots, 4); err != nil {
		t.Fatal(err)
	}
	rec := record(t, ctx, l)
	startScheduler(t, ctx, env, "noexec-scheduler")
	// The periodic pass cannot come before started plus the interval (the
	// ticker starts later): an eviction before then was not its work.
	const interval = time.Minute
	started := time.Now()
	d := startDescheduler(t, ctx, env, "noexec-descheduler", "d1", func(c *configv1alpha1.DeschedulerConfiguration) {
		fast(c)
		c.Interval = &metav1.Duration{Duration: interval}
	})
	eventually(t, ctx, 30*time.Second, "descheduler ready", func() (bool, error) { return d.Descheduler.Ready(), nil })

	tainted := time.Now()
	if err := l.SetTaints(ctx, "a", drainTaint); err != nil {
		t.Fatal(err)
	}
	b := l.SeedName("b")
	eventually(t, ctx, 30*time.Second, "untolerating shoots placed on seed b", func() (bool, error) {
		s := shootsByName(t, ctx, l)
		for _, n := range []string{"plain-1", "plain-2", "plain-3", "other-key"} {
			if fixture.Of(ptr.To(s[n])) != b {
				return false, nil
			}
		}
		return true, nil
	})
	// The limited toleration runs out 4s after the taint appeared: never
	// before, and the requeue at that moment (not the next periodic pass,
	// one interval after the start) is what evicts it.
	eventually(t, ctx, 2*time.Minute, "limited shoot evicted", func() (bool, error) { return !rec.evictedAt("limited").IsZero(), nil })
	if wait := rec.evictedAt("limited").Sub(tainted); wait < 4*time.Second {
		t.Errorf("shoot with tolerationSeconds 4 was evicted %v after the taint, before its toleration ran out", wait)
	}
	if !rec.evictedAt("limited").Before(started.Add(interval)) {
		t.Errorf("shoot with tolerationSeconds 4 was evicted %v after the taint, only by the periodic pass (interval %v): the toleration's end did not requeue the seed",
			rec.evictedAt("limited").Sub(tainted), interval)
	}
	s := shootsByName(t, ctx, l)
	if got := fixture.Of(ptr.To(s["forever"])); got != l.SeedName("a") {
		t.Errorf("tolerating shoot moved to %q", got)
	}
	evicted := s["plain-1"]
	if evicted.Annotations[v1alpha1.AnnotationDescheduledFrom] != l.SeedName("a") ||
		!strings.Contains(evicted.Annotations[v1alpha1.AnnotationDescheduledReason], "NoExecute") {
		t.Errorf("annotations of an evicted shoot: %v", evicted.Annotations)
	}
	// No ping-pong: once the descheduler has finished every pass these
	// placements could start, and the recorder has seen every placement up
	// to then, no untolerating shoot went back to seed a.
	quiesce(t, ctx, l)
	caughtUp(t, ctx, l, rec)
	for _, n := range []string{"plain-1", "plain-2", "plain-3", "other-key"} {
		if got, want := strings.Join(rec.seeds(n), ","), l.SeedName("a")+",,"+b; got != want {
			t.Errorf("placements of %s: %q, want %q", n, got, want)
		}
	}
	// A shoot tolerating the taint for a limited time is not sent back to the
	// seed it was evicted from either: it would only be evicted again.
	if got, want := strings.Join(rec.seeds("limited"), ","), l.SeedName("a")+",,"+b; got != want {
		t.Errorf("placements of the shoot with tolerationSeconds: %q, want %q", got, want)
	}
	// Events are written asynchronously: wait for one per evicted shoot.
	eventually(t, ctx, time.Minute, "a Descheduled Event per evicted shoot (5)", func() (bool, error) {
		events, err := descheduledEvents(ctx, l)
		return len(events) >= 5, err
	})
}

// TestRequireFit: with no other seed fitting, nothing is evicted and the
// Event says why; once a seed is added, the eviction happens.
func TestRequireFit(t *testing.T) {
	ctx, env, l := setup(t, "fit")
	must[*v1alpha1.Seed](t)(l.Seed(ctx, "a", -1, drainTaint))
	// Seed b is full: it is no candidate.
	must[*v1alpha1.Seed](t)(l.Seed(ctx, "b", 0))
	if err := l.CreateShoots(ctx, []*v1alpha1.Shoot{l.NewShoot("x", "a")}, 1); err != nil {
		t.Fatal(err)
	}
	startScheduler(t, ctx, env, "fit-scheduler")
	startDescheduler(t, ctx, env, "fit-descheduler", "d1", fast)
	eventually(t, ctx, 30*time.Second, "EvictionSkipped Event", func() (bool, error) {
		events, err := l.Events(ctx, "EvictionSkipped")
		if err != nil || len(events) == 0 {
			return false, err
		}
		if msg := events[0].Message; !strings.Contains(msg, "no other seed fits") || !strings.Contains(msg, "no capacity") {
			t.Errorf("EvictionSkipped message %q does not say why", msg)
		}
		return true, nil
	})
	if got := fixture.Of(ptr.To(shootsByName(t, ctx, l)["x"])); got != l.SeedName("a") {
		t.Fatalf("shoot evicted although no seed fits: on %q", got)
	}
	must[*v1alpha1.Seed](t)(l.Seed(ctx, "c", -1))
	eventually(t, ctx, 30*time.Second, "shoot moved to the new seed", func() (bool, error) {
		return fixture.Of(ptr.To(shootsByName(t, ctx, l)["x"])) == l.SeedName("c"), nil
	})
}

// TestLimitsUnderDrain drains a seed of 200 shoots: never more than
// maxPendingEvicted evicted shoots wait for a seed at once, and evictions
// keep to evictionRate.
func TestLimitsUnderDrain(t *testing.T) {
	ctx, env, l := setup(t, "limits")
	must[*v1alpha1.Seed](t)(l.Seed(ctx, "a", -1))
	for _, s := range []string{"b", "c"} {
		must[*v1alpha1.Seed](t)(l.Seed(ctx, s, -1))
	}
	var shoots []*v1alpha1.Shoot
	for i := range 200 {
		shoots = append(shoots, l.NewShoot(fmt.Sprintf("s-%03d", i), "a"))
	}
	if err := l.CreateShoots(ctx, shoots, 16); err != nil {
		t.Fatal(err)
	}
	rec := record(t, ctx, l)
	const rate, burst, maxPending = 50.0, 5, 8
	startScheduler(t, ctx, env, "limits-scheduler")
	// The descheduler's eviction requests (patches of shoots) are timed
	// as they leave the client: that is where the token bucket acts.
	var mu sync.Mutex
	var requests []time.Time
	restConfig := env.Config()
	restConfig.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(req *http.Request) (*http.Response, error) {
			if req.Method == http.MethodPatch && strings.Contains(req.URL.Path, "/shoots/") && !strings.HasSuffix(req.URL.Path, "/status") {
				mu.Lock()
				requests = append(requests, time.Now())
				mu.Unlock()
			}
			return rt.RoundTrip(req)
		})
	})
	d := startDeschedulerWith(t, ctx, restConfig, "limits-descheduler", "d1", func(c *configv1alpha1.DeschedulerConfiguration) {
		c.EvictionRate = ptr.To(rate)
		c.EvictionBurst = ptr.To[int32](burst)
		c.MaxPendingEvicted = ptr.To[int32](maxPending)
		c.MaxEvictionsPerSeed = ptr.To[int32](0)
		c.MaxEvictionsTotal = ptr.To[int32](0)
		c.ConcurrentEvictions = 8
	})
	eventually(t, ctx, 30*time.Second, "descheduler ready", func() (bool, error) { return d.Descheduler.Ready(), nil })
	if err := l.SetTaints(ctx, "a", drainTaint); err != nil {
		t.Fatal(err)
	}
	eventually(t, ctx, 2*time.Minute, "seed a drained", func() (bool, error) {
		for _, s := range must[[]v1alpha1.Shoot](t)(l.Shoots(ctx)) {
			if seed := fixture.Of(&s); seed == "" || seed == l.SeedName("a") {
				return false, nil
			}
		}
		return true, nil
	})
	// Later evictions would show after the descheduler's last passes; the
	// recorder must have seen every placement before it is read.
	quiesce(t, ctx, l)
	caughtUp(t, ctx, l, rec)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.maxUnbound > maxPending {
		t.Errorf("%d evicted shoots waited for a seed at once, maxPendingEvicted is %d", rec.maxUnbound, maxPending)
	}
	if len(rec.evictions) != 200 {
		t.Errorf("observed %d evictions, want 200", len(rec.evictions))
	}
	mu.Lock()
	defer mu.Unlock()
	if len(requests) != 200 {
		t.Fatalf("%d eviction requests, want 200", len(requests))
	}
	// Token bucket: at most burst + rate * t evictions in any window of
	// length t; check every window that starts at an eviction (1ms slack
	// for the clock readings).
	worst := 0.0
	for i := range requests {
		for j := i; j < len(requests); j++ {
			window := requests[j].Sub(requests[i]).Seconds()
			if excess := float64(j-i+1) - (burst + rate*window); excess > worst {
				worst = excess
			}
		}
	}
	if worst > 1 {
		t.Errorf("evictions exceed the token bucket (rate %.0f/s, burst %d) by %.1f in some window", rate, burst, worst)
	}
	span := requests[len(requests)-1].Sub(requests[0]).Seconds()
	t.Logf("200-shoot drain: max %d pending at once (limit %d), %.1f evictions/s on average (limit %.0f, burst %d)",
		rec.maxUnbound, maxPending, float64(len(requests)-1)/math.Max(span, 1e-9), rate, burst)
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestOverCapacity evicts exactly usage - allocatable shoots, never the
// annotated ones, and the scheduler does not put them back.
func TestOverCapacity(t *testing.T) {
	ctx, env, l := setup(t, "overcap")
	must[*v1alpha1.Seed](t)(l.Seed(ctx, "a", 3))
	must[*v1alpha1.Seed](t)(l.Seed(ctx, "b", -1))
	var shoots []*v1alpha1.Shoot
	for i := range 7 {
		s := l.NewShoot(fmt.Sprintf("s-%d", i), "a")
		if i < 4 {
			// The lowest-value shoots are protected: they must stay anyway.
			s.Spec.Purpose = ptr.To(v1alpha1.ShootPurposeEvaluation)
			if i < 2 {
				s.Annotations = map[string]string{v1alpha1.AnnotationEvict: "false"}
			}
		}
		shoots = append(shoots, s)
	}
	if err := l.CreateShoots(ctx, shoots, 4); err != nil {
		t.Fatal(err)
	}
	rec := record(t, ctx, l)
	startScheduler(t, ctx, env, "overcap-scheduler")
	startDescheduler(t, ctx, env, "overcap-descheduler", "d1", func(c *configv1alpha1.DeschedulerConfiguration) {
		fast(c)
		c.Plugins = []configv1alpha1.DeschedulerPlugin{{Name: configv1alpha1.DeschedulerPluginOverCapacity}}
	})
	eventually(t, ctx, 30*time.Second, "four shoots moved to seed b", func() (bool, error) {
		n := 0
		for _, s := range must[[]v1alpha1.Shoot](t)(l.Shoots(ctx)) {
			if fixture.Of(&s) == l.SeedName("b") {
				n++
			}
		}
		return n == 4, nil
	})
	// A fifth eviction or a shoot sent back would show by the end of the
	// descheduler's next passes and in the recorder once it has caught up.
	quiesce(t, ctx, l)
	caughtUp(t, ctx, l, rec)
	s := shootsByName(t, ctx, l)
	moved := 0
	for name, shoot := range s {
		if fixture.Of(&shoot) == l.SeedName("b") {
			moved++
			if shoot.Annotations[v1alpha1.AnnotationEvict] == "false" {
				t.Errorf("protected shoot %s was evicted", name)
			}
			if got := strings.Join(rec.seeds(name), ","); got != l.SeedName("a")+",,"+l.SeedName("b") {
				t.Errorf("placements of %s: %q (ping-pong?)", name, got)
			}
		}
	}
	if moved != 4 {
		t.Errorf("%d shoots moved, want usage - allocatable = 7 - 3 = 4", moved)
	}
	// The two unprotected evaluation shoots go first.
	for _, n := range []string{"s-2", "s-3"} {
		if fixture.Of(ptr.To(s[n])) != l.SeedName("b") {
			t.Errorf("evaluation shoot %s was not among the evicted", n)
		}
	}
}

// TestDryRun changes nothing and reports where the shoots would go.
func TestDryRun(t *testing.T) {
	ctx, env, l := setup(t, "dryrun")
	must[*v1alpha1.Seed](t)(l.Seed(ctx, "a", -1, drainTaint))
	must[*v1alpha1.Seed](t)(l.Seed(ctx, "b", -1))
	if err := l.CreateShoots(ctx, []*v1alpha1.Shoot{l.NewShoot("x", "a"), l.NewShoot("y", "a")}, 2); err != nil {
		t.Fatal(err)
	}
	before := shootsByName(t, ctx, l)
	startDescheduler(t, ctx, env, "dryrun-descheduler", "d1", func(c *configv1alpha1.DeschedulerConfiguration) {
		fast(c)
		c.DryRun = true
	})
	eventually(t, ctx, 30*time.Second, "WouldDeschedule Events", func() (bool, error) {
		events, err := l.Events(ctx, "WouldDeschedule")
		return len(events) == 2, err
	})
	for _, e := range must[[]corevEvent](t)(l.Events(ctx, "WouldDeschedule")) {
		if !strings.Contains(e.Message, "would go to seed "+l.SeedName("b")) {
			t.Errorf("WouldDeschedule does not say where the shoot would go: %q", e.Message)
		}
	}
	for name, s := range shootsByName(t, ctx, l) {
		if s.ResourceVersion != before[name].ResourceVersion {
			t.Errorf("dry run changed shoot %s", name)
		}
	}
}

// TestTwoReplicas: two descheduler replicas with leader election never
// evict the same shoot twice, also when the leader changes mid-drain.
func TestTwoReplicas(t *testing.T) {
	ctx, env, l := setup(t, "replicas")
	must[*v1alpha1.Seed](t)(l.Seed(ctx, "a", -1))
	must[*v1alpha1.Seed](t)(l.Seed(ctx, "b", -1))
	var shoots []*v1alpha1.Shoot
	for i := range 60 {
		shoots = append(shoots, l.NewShoot(fmt.Sprintf("s-%02d", i), "a"))
	}
	if err := l.CreateShoots(ctx, shoots, 8); err != nil {
		t.Fatal(err)
	}
	rec := record(t, ctx, l)
	startScheduler(t, ctx, env, "replicas-scheduler")
	slow := func(c *configv1alpha1.DeschedulerConfiguration) {
		fast(c)
		c.EvictionRate = ptr.To(20.0)
	}
	d1 := startDescheduler(t, ctx, env, "replicas-descheduler", "d1", slow)
	startDescheduler(t, ctx, env, "replicas-descheduler", "d2", slow)
	eventually(t, ctx, 30*time.Second, "replicas ready", func() (bool, error) { return d1.Descheduler.Ready(), nil })
	if err := l.SetTaints(ctx, "a", drainTaint); err != nil {
		t.Fatal(err)
	}
	// Stop the first replica mid-drain (if it leads, the second takes over).
	eventually(t, ctx, 30*time.Second, "drain started", func() (bool, error) {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		return len(rec.evictions) >= 10, nil
	})
	if err := d1.Stop(); err != nil {
		t.Logf("first replica: %v", err)
	}
	eventually(t, ctx, time.Minute, "seed a drained", func() (bool, error) {
		for _, s := range must[[]v1alpha1.Shoot](t)(l.Shoots(ctx)) {
			if seed := fixture.Of(&s); seed != l.SeedName("b") {
				return false, nil
			}
		}
		return true, nil
	})
	// A second eviction by the new leader would come from a pass started by
	// now; the recorder must have seen every placement up to then.
	quiesce(t, ctx, l)
	caughtUp(t, ctx, l, rec)
	for _, s := range shoots {
		if got := strings.Join(rec.seeds(s.Name), ","); got != l.SeedName("a")+",,"+l.SeedName("b") {
			t.Errorf("placements of %s: %q, want one eviction", s.Name, got)
		}
	}
	// Events are written asynchronously: wait until every shoot has its
	// Event, so that the count below is not vacuous, then wait for the
	// descheduler to be past all of its passes again before counting.
	perShoot := func() map[string]int32 {
		out := map[string]int32{}
		for _, e := range must[[]corevEvent](t)(descheduledEvents(ctx, l)) {
			out[e.InvolvedObject.Name] += e.Count
		}
		return out
	}
	var missing []string
	if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		got := perShoot()
		missing = nil
		for _, s := range shoots {
			if got[s.Name] == 0 {
				missing = append(missing, s.Name)
			}
		}
		return len(missing) == 0, nil
	}); err != nil {
		t.Fatalf("a Descheduled Event for every shoot: %v; evicted without one: %v", err, missing)
	}
	quiesce(t, ctx, l)
	for name, n := range perShoot() {
		if n != 1 {
			t.Errorf("shoot %s has %d Descheduled Events", name, n)
		}
	}
	if got := len(perShoot()); got != len(shoots) {
		t.Errorf("%d shoots have Descheduled Events, want %d", got, len(shoots))
	}
}

// TestOnePass: with interval 0 the descheduler makes one pass, writes its
// evictions and Events, and exits.
func TestOnePass(t *testing.T) {
	ctx, env, l := setup(t, "onepass")
	must[*v1alpha1.Seed](t)(l.Seed(ctx, "a", -1, drainTaint))
	must[*v1alpha1.Seed](t)(l.Seed(ctx, "b", -1))
	if err := l.CreateShoots(ctx, []*v1alpha1.Shoot{l.NewShoot("x", "a"), l.NewShoot("y", "b")}, 2); err != nil {
		t.Fatal(err)
	}
	d := startDescheduler(t, ctx, env, "onepass-descheduler", "d1", func(c *configv1alpha1.DeschedulerConfiguration) {
		fast(c)
		c.Interval = &metav1.Duration{}
	})
	if err := d.Wait(30 * time.Second); err != nil {
		t.Fatalf("one pass: %v", err)
	}
	s := shootsByName(t, ctx, l)
	if fixture.Of(ptr.To(s["x"])) != "" || fixture.Of(ptr.To(s["y"])) != l.SeedName("b") {
		t.Errorf("after one pass: x on %q, y on %q", fixture.Of(ptr.To(s["x"])), fixture.Of(ptr.To(s["y"])))
	}
	// The eviction is one patch, with no status write: the evicted shoot
	// reads Pending from its empty seed and its annotations.
	if got := get.ShootStatus(ptr.To(s["x"])); got != string(v1alpha1.LastOperationStatePending) ||
		s["x"].Annotations[v1alpha1.AnnotationDescheduledFrom] != l.SeedName("a") {
		t.Errorf("the evicted shoot reads %q with annotations %v, want Pending, descheduled from %s", got, s["x"].Annotations, l.SeedName("a"))
	}
	// `kubectl get shoots` says the same without a status: no Seed, and the
	// seed it was evicted from.
	raw, err := env.KubeClient().CoreV1().RESTClient().Get().
		AbsPath("/apis/core.graft.dev/v1alpha1/namespaces", s["x"].Namespace, "shoots", s["x"].Name).
		SetHeader("Accept", "application/json;as=Table;g=meta.k8s.io;v=v1").
		DoRaw(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var table metav1.Table
	if err := json.Unmarshal(raw, &table); err != nil || len(table.Rows) != 1 {
		t.Fatalf("table of shoot x: %v (%s)", err, raw)
	}
	cells := map[string]any{}
	for i, c := range table.ColumnDefinitions {
		cells[c.Name] = table.Rows[0].Cells[i]
	}
	if seed, from := cells["Seed"], cells["Descheduled From"]; seed != nil || from != l.SeedName("a") {
		t.Errorf("kubectl's columns for the evicted shoot: Seed %v, Descheduled From %v; want none and %s (all: %v)", seed, from, l.SeedName("a"), cells)
	}
	if events := must[[]corevEvent](t)(descheduledEvents(ctx, l)); len(events) != 1 {
		t.Errorf("Descheduled Events on shoots: %d, want 1 (flushed before exit)", len(events))
	}
	families := must[[]*dto.MetricFamily](t)(d.Registry.Gather())
	found := false
	for _, f := range families {
		if f.GetName() == "graft_descheduler_evictions_total" {
			for _, m := range f.GetMetric() {
				if m.GetCounter().GetValue() == 1 {
					found = true
				}
			}
		}
	}
	if !found {
		t.Error("graft_descheduler_evictions_total does not count the eviction")
	}
}
