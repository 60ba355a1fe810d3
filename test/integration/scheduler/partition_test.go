//go:build integration

package scheduler

import (
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/pkg/component/leaderelection"
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
// server: it must stop on its own, and the standby must take over within the
// lease duration (plus a retry period) and schedule.
func TestStandbyTakesOverFromPartitionedLeader(t *testing.T) {
	f := newFixture(t)
	ensureNamespace(t, "garden")
	f.createSeed("a", "eu-west-1", nil, nil)
	const leaseDuration = 4 * time.Second
	lease := func(c *configv1alpha1.SchedulerConfiguration) {
		c.LeaderElection.LeaderElect = ptr.To(true)
		c.LeaderElection.ResourceName = "sched-" + f.name
		c.LeaderElection.LeaseDuration = metav1.Duration{Duration: leaseDuration}
		c.LeaderElection.RenewDeadline = metav1.Duration{Duration: 3 * time.Second}
		c.LeaderElection.RetryPeriod = metav1.Duration{Duration: 500 * time.Millisecond}
	}
	var cut atomic.Bool
	leader := startSchedulerWithConfig(t, "sched-partitioned", func(c *rest.Config) {
		c.Wrap(func(rt http.RoundTripper) http.RoundTripper { return cuttable{next: rt, cut: &cut} })
	}, lease)
	f.waitFor("the first instance to lead", 15*time.Second, func() (bool, error) { return leader.IsLeader(), nil })
	standby := startScheduler(t, "sched-standby", lease)
	f.createShoot(f.newShoot("before", "eu-west-1"))
	f.waitForSeed("before", 10*time.Second)
	if standby.IsLeader() {
		t.Fatal("both instances lead")
	}

	cut.Store(true)
	cutAt := time.Now()
	f.waitFor("the standby to lead", 3*leaseDuration, func() (bool, error) { return standby.IsLeader(), nil })
	t.Logf("standby leads %v after the partition (lease duration %v)", time.Since(cutAt), leaseDuration)
	if d := time.Since(cutAt); d > leaseDuration+3*time.Second {
		t.Errorf("takeover took %v, more than the lease duration %v plus three seconds", d, leaseDuration)
	}
	select {
	case <-leader.done:
		if !errors.Is(leader.err, leaderelection.ErrLeaseLost) {
			t.Errorf("the partitioned leader returned %v, want ErrLeaseLost", leader.err)
		}
	case <-time.After(5 * time.Second):
		t.Error("the partitioned leader did not stop")
	}

	for i := range 5 {
		f.createShoot(f.newShoot(fmt.Sprintf("after-%d", i), "eu-west-1"))
	}
	for i := range 5 {
		f.waitForSeed(fmt.Sprintf("after-%d", i), 10*time.Second)
	}
}
