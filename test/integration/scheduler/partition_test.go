//go:build integration

package scheduler

import (
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/pkg/component/leadership"
	"github.com/graft-dev/graft/pkg/scheduler"
)

// cuttable is a transport that fails every request once cut, as a network
// partition would; the lease cannot be released then either.
type cuttable struct {
	next http.RoundTripper
	cut  *atomic.Bool
}

func (c cuttable) RoundTrip(req *http.Request) (*http.Response, error) {
	if c.cut.Load() {
		return nil, errors.New("cut off from the API server")
	}
	return c.next.RoundTrip(req)
}

// TestStandbyTakesOverFromPartitionedLeader cuts the leader off the API
// server: it must stop on its own, and the standby must take over once the
// lease has run out (never before, and within a few retry periods after, as
// the Lease's own timestamps show) and schedule.
func TestStandbyTakesOverFromPartitionedLeader(t *testing.T) {
	f := newFixture(t)
	ensureNamespace(t, "garden")
	f.createSeed("a", "eu-west-1", nil, nil)
	// A renew deadline of seconds: writes are fenced to within it of the
	// last renewal, and a loaded machine can take seconds to renew.
	const leaseDuration, retryPeriod = 10 * time.Second, time.Second
	lease := func(c *configv1alpha1.SchedulerConfiguration) {
		c.LeaderElection.LeaderElect = ptr.To(true)
		c.LeaderElection.ResourceName = "sched-" + f.name
		c.LeaderElection.LeaseDuration = metav1.Duration{Duration: leaseDuration}
		c.LeaderElection.RenewDeadline = metav1.Duration{Duration: 7 * time.Second}
		c.LeaderElection.RetryPeriod = metav1.Duration{Duration: retryPeriod}
	}
	var cut atomic.Bool
	leader := startSchedulerWith(t, "sched-partitioned", func(c *rest.Config) {
		c.Wrap(func(rt http.RoundTripper) http.RoundTripper { return cuttable{next: rt, cut: &cut} })
	}, lease, scheduler.Options{})
	f.waitFor("the first instance to lead", time.Minute, func() (bool, error) { return leader.IsLeader(), nil })
	standby := startScheduler(t, "sched-standby", lease)
	f.createShoot(f.newShoot("before", "eu-west-1"))
	f.waitForSeed("before", time.Minute)
	if standby.IsLeader() {
		t.Fatal("both instances lead")
	}

	// Every version of the Lease from now on: the partitioned leader's last
	// renewal and the standby's acquisition are both recorded in it, by the
	// replicas' own clocks, free of the test's polling and the API server's
	// latency.
	leases := f.env.KubeClient().CoordinationV1().Leases("garden")
	current, err := leases.Get(f.ctx, "sched-"+f.name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := leases.Watch(f.ctx, metav1.ListOptions{FieldSelector: "metadata.name=sched-" + f.name, ResourceVersion: current.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	var mu sync.Mutex
	versions := []coordinationv1.LeaseSpec{current.Spec}
	go func() {
		for ev := range w.ResultChan() {
			if l, ok := ev.Object.(*coordinationv1.Lease); ok {
				mu.Lock()
				versions = append(versions, l.Spec)
				mu.Unlock()
			}
		}
	}()

	cut.Store(true)
	cutAt := time.Now()
	f.waitFor("the standby to lead", 2*time.Minute, func() (bool, error) { return standby.IsLeader(), nil })
	t.Logf("standby leads %v after the partition (lease duration %v)", time.Since(cutAt), leaseDuration)
	var lastRenew, acquired time.Time
	f.waitFor("the watch to deliver the standby's acquisition", time.Minute, func() (bool, error) {
		mu.Lock()
		defer mu.Unlock()
		for _, v := range versions {
			switch holder := ptr.Deref(v.HolderIdentity, ""); {
			case holder == "sched-partitioned" && v.RenewTime != nil:
				lastRenew = v.RenewTime.Time
			case holder == "sched-standby" && v.AcquireTime != nil:
				acquired = v.AcquireTime.Time
				return true, nil
			}
		}
		return false, nil
	})
	d := acquired.Sub(lastRenew)
	t.Logf("the standby acquired the lease %v after the partitioned leader's last renewal", d)
	if d < leaseDuration {
		t.Errorf("the standby acquired the lease %v after the leader's last renewal, before the lease duration %v ran out", d, leaseDuration)
	}
	if slack := 5 * retryPeriod; d > leaseDuration+slack {
		t.Errorf("the standby acquired the lease %v after the leader's last renewal, more than the lease duration %v plus five retry periods", d, leaseDuration)
	}
	// The leader stops on its own once its renew deadline has passed, which
	// is before the lease runs out; a minute is only the test's patience.
	select {
	case <-leader.done:
		if !errors.Is(leader.err, leadership.ErrLeaseLost) {
			t.Errorf("the partitioned leader returned %v, want ErrLeaseLost", leader.err)
		}
	case <-time.After(time.Minute):
		t.Error("the partitioned leader did not stop")
	}

	for i := range 5 {
		f.createShoot(f.newShoot(fmt.Sprintf("after-%d", i), "eu-west-1"))
	}
	for i := range 5 {
		f.waitForSeed(fmt.Sprintf("after-%d", i), time.Minute)
	}
}
