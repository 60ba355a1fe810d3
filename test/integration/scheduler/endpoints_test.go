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
	"github.com/graft-dev/graft/pkg/component/leaderelection"
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
	f.waitForSeed("ok", 10*time.Second)
	f.waitFor("the failure to be reported", 10*time.Second, func() (bool, error) {
		return len(f.events("nowhere", "SchedulingFailed")) > 0, nil
	})

	if code, body := httpGet(t, "http://"+s.HealthAddr().String()+"/healthz"); code != 200 {
		t.Errorf("/healthz = %d %s", code, body)
	}
	f.waitFor("/readyz to pass", 5*time.Second, func() (bool, error) {
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
	f.waitFor("the pending gauge", 5*time.Second, func() (bool, error) {
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
// it must stop binding and return ErrLeaseLost within the renew deadline.
func TestLeaseLossStopsScheduling(t *testing.T) {
	f := newFixture(t)
	ensureNamespace(t, "garden")
	f.createSeed("a", "eu-west-1", nil, nil)
	leaseName := "sched-" + f.name
	s := startScheduler(t, "sched-lease-loss", func(c *configv1alpha1.SchedulerConfiguration) {
		c.LeaderElection.LeaderElect = ptr.To(true)
		c.LeaderElection.ResourceName = leaseName
		c.LeaderElection.LeaseDuration = metav1.Duration{Duration: 4 * time.Second}
		c.LeaderElection.RenewDeadline = metav1.Duration{Duration: 2 * time.Second}
		c.LeaderElection.RetryPeriod = metav1.Duration{Duration: 500 * time.Millisecond}
	})
	f.waitFor("leadership", 10*time.Second, func() (bool, error) { return s.IsLeader(), nil })
	f.createShoot(f.newShoot("before", "eu-west-1"))
	f.waitForSeed("before", 10*time.Second)

	// Another holder takes the lease over (as if this replica had been partitioned away).
	leases := f.env.KubeClient().CoordinationV1().Leases("garden")
	f.waitFor("the lease to be taken over", 5*time.Second, func() (bool, error) {
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
	case <-time.After(10 * time.Second):
		t.Fatal("the scheduler still runs 10s after losing its lease")
	}
	if !errors.Is(s.err, leaderelection.ErrLeaseLost) {
		t.Errorf("Run returned %v, want ErrLeaseLost", s.err)
	}
	t.Logf("stopped %v after the lease was taken", time.Since(lostAt))
	if s.IsLeader() {
		t.Error("IsLeader is still true")
	}

	for i := range 3 {
		f.createShoot(f.newShoot(fmt.Sprintf("after-%d", i), "eu-west-1"))
	}
	time.Sleep(2 * time.Second)
	for i := range 3 {
		if seed := f.getShoot(fmt.Sprintf("after-%d", i)).Spec.SeedName; seed != nil {
			t.Errorf("after-%d was bound to %s after the lease was lost", i, *seed)
		}
	}
}
