//go:build integration

package scheduler

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/pkg/component/leadership"
)

func httpGet(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func TestHealthReadinessAndMetrics(t *testing.T) {
	f := newFixture(t)
	f.createSeed("a", "eu-west-1", nil, nil)
	s := startScheduler(t, "sched-endpoints", nil)
	f.createShoot(f.newShoot("ok", "eu-west-1"))
	f.createShoot(f.newShoot("nowhere", "mars-north-1"))
	f.waitForSeed("ok", time.Minute)
	f.waitFor("the failure to be reported", time.Minute, func() (bool, error) {
		return len(f.events("nowhere", "SchedulingFailed")) > 0, nil
	})

	if code, body := httpGet(t, "http://"+s.HealthAddr().String()+"/healthz"); code != 200 {
		t.Errorf("/healthz = %d %s", code, body)
	}
	f.waitFor("/readyz to pass", time.Minute, func() (bool, error) {
		code, _ := httpGet(t, "http://"+s.HealthAddr().String()+"/readyz")
		return code == 200, nil
	})
	_, body := httpGet(t, "http://"+s.HealthAddr().String()+"/readyz?verbose")
	for _, check := range []string{"[+]informers-synced ok", "[+]leader-election ok"} {
		if !strings.Contains(body, check) {
			t.Errorf("/readyz?verbose lacks %q:\n%s", check, body)
		}
	}
	var metrics string
	f.waitFor("the pending gauge", time.Minute, func() (bool, error) {
		_, metrics = httpGet(t, "http://"+s.MetricsAddr().String()+"/metrics")
		return strings.Contains(metrics, `graft_scheduler_pending_shoots{queue="unschedulable"}`), nil
	})
	for _, want := range []string{
		`graft_scheduler_schedule_attempts_total{result="scheduled"}`,
		`graft_scheduler_schedule_attempts_total{result="unschedulable"}`,
		`graft_scheduler_scheduling_duration_seconds_bucket`,
		`graft_scheduler_attempt_duration_seconds_bucket{result="scheduled"`,
		`graft_scheduler_pending_shoots{queue="active"}`,
		`workqueue_adds_total{name="graft_scheduler"}`,
		`workqueue_depth{name="graft_scheduler"}`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

// TestLeaseLossStopsScheduling takes the lease away from a leading scheduler:
// it must stop binding and return ErrLeaseLost.
func TestLeaseLossStopsScheduling(t *testing.T) {
	f := newFixture(t)
	ensureNamespace(t, "garden")
	f.createSeed("a", "eu-west-1", nil, nil)
	leaseName := "sched-" + f.name
	s := startScheduler(t, "sched-lease-loss", func(c *configv1alpha1.SchedulerConfiguration) {
		c.LeaderElection.LeaderElect = ptr.To(true)
		c.LeaderElection.ResourceName = leaseName
		// client-go's usual timings: writes are fenced to within the renew
		// deadline of the last renewal, and a loaded machine can take seconds
		// to renew; the next renewal attempt (a retry period) finds the thief.
		c.LeaderElection.LeaseDuration = metav1.Duration{Duration: 15 * time.Second}
		c.LeaderElection.RenewDeadline = metav1.Duration{Duration: 10 * time.Second}
		c.LeaderElection.RetryPeriod = metav1.Duration{Duration: time.Second}
	})
	f.waitFor("leadership", time.Minute, func() (bool, error) { return s.IsLeader(), nil })
	f.createShoot(f.newShoot("before", "eu-west-1"))
	f.waitForSeed("before", time.Minute)

	// Another holder takes the lease over (as if this replica had been partitioned away).
	leases := f.env.KubeClient().CoordinationV1().Leases("garden")
	f.waitFor("the lease to be taken over", time.Minute, func() (bool, error) {
		lease, err := leases.Get(context.Background(), leaseName, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		lease.Spec.HolderIdentity = ptr.To("thief")
		lease.Spec.LeaseDurationSeconds = ptr.To[int32](3600)
		lease.Spec.RenewTime = &metav1.MicroTime{Time: time.Now()}
		_, err = leases.Update(context.Background(), lease, metav1.UpdateOptions{})
		return err == nil, nil
	})
	lostAt := time.Now()
	select {
	case <-s.done:
	case <-time.After(time.Minute):
		t.Fatal("the scheduler still runs a minute after losing its lease")
	}
	if !errors.Is(s.err, leadership.ErrLeaseLost) {
		t.Errorf("Run returned %v, want ErrLeaseLost", s.err)
	}
	t.Logf("stopped %v after the lease was taken", time.Since(lostAt))
	if s.IsLeader() {
		t.Error("IsLeader is still true")
	}

	for i := range 3 {
		f.createShoot(f.newShoot(fmt.Sprintf("after-%d", i), "eu-west-1"))
	}
	// A successor binds the new shoots; every binding is preconditioned on
	// the version read, so a late write of the old leader could only come
	// first, and the field manager of each binding says whose it is.
	startScheduler(t, "sched-successor", nil)
	for i := range 3 {
		name := fmt.Sprintf("after-%d", i)
		f.waitForSeed(name, time.Minute)
		for _, mf := range f.getShoot(name).ManagedFields {
			if mf.Manager == "sched-lease-loss" && mf.Operation == metav1.ManagedFieldsOperationUpdate && mf.Subresource == "" {
				t.Errorf("%s was bound by the scheduler that had lost its lease", name)
			}
		}
	}
}

// TestClientThrottlingIsCounted runs a scheduler whose clients may send one
// request every two seconds: starting its informers makes the graft client
// wait, and /metrics counts the waits over a second for this component.
func TestClientThrottlingIsCounted(t *testing.T) {
	const userAgent = "sched-throttled"
	s := startScheduler(t, userAgent, func(c *configv1alpha1.SchedulerConfiguration) {
		c.ClientConnection.QPS = 0.5
		c.ClientConnection.Burst = 1
	})
	want := `graft_client_throttled_requests_total{client="graft",component="` + userAgent + `"}`
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var metrics string
	for !strings.Contains(metrics, want) {
		select {
		case <-ctx.Done():
			t.Fatalf("/metrics never counted a throttled request of the graft client (%s):\n%s", want, grepLines(metrics, "graft_client_throttled"))
		case <-time.After(200 * time.Millisecond):
		}
		_, metrics = httpGet(t, "http://"+s.MetricsAddr().String()+"/metrics")
	}
	for _, want := range []string{
		`graft_client_throttled_seconds_bucket{client="graft",component="` + userAgent + `",le="1"}`,
		`graft_client_throttled_seconds_count{client="kubernetes",component="` + userAgent + `"}`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s:\n%s", want, grepLines(metrics, "graft_client_throttled"))
		}
	}
}

// grepLines returns the lines of text that contain s.
func grepLines(text, s string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, s) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
