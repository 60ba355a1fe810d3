package leadership

import (
	"context"
	"errors"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	componentbaseconfigv1alpha1 "k8s.io/component-base/config/v1alpha1"
	"k8s.io/utils/ptr"
)

func config(leaderElect bool) componentbaseconfigv1alpha1.LeaderElectionConfiguration {
	return componentbaseconfigv1alpha1.LeaderElectionConfiguration{
		LeaderElect:       ptr.To(leaderElect),
		LeaseDuration:     metav1.Duration{Duration: 2 * time.Second},
		RenewDeadline:     metav1.Duration{Duration: time.Second},
		RetryPeriod:       metav1.Duration{Duration: 100 * time.Millisecond},
		ResourceLock:      "leases",
		ResourceName:      "test",
		ResourceNamespace: "garden",
	}
}

func TestRunWithoutLeaderElection(t *testing.T) {
	e := &Elector{Config: config(false)}
	ran := false
	if err := e.Run(context.Background(), func(context.Context) { ran = e.IsLeader() }); err != nil {
		t.Fatal(err)
	}
	if !ran || e.IsLeader() {
		t.Errorf("work ran as leader: %v; leader afterwards: %v", ran, e.IsLeader())
	}
}

func TestRunHoldsAndReleasesTheLease(t *testing.T) {
	client := fake.NewClientset()
	e := &Elector{Config: config(true), Client: client, Identity: "me"}
	ctx, cancel := context.WithCancel(context.Background())
	working := make(chan struct{})
	done := make(chan error)
	go func() {
		done <- e.Run(ctx, func(workCtx context.Context) {
			close(working)
			<-workCtx.Done()
		})
	}()
	select {
	case <-working:
	case <-time.After(10 * time.Second):
		t.Fatal("work did not start")
	}
	lease, err := client.CoordinationV1().Leases("garden").Get(context.Background(), "test", metav1.GetOptions{})
	if err != nil || ptr.Deref(lease.Spec.HolderIdentity, "") != "me" {
		t.Fatalf("lease %+v, err %v: want held by me", lease, err)
	}
	if !e.IsLeader() || e.Check(time.Second)() != nil {
		t.Error("leading, but IsLeader or Check disagree")
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run after cancel: %v, want nil", err)
	}
	lease, _ = client.CoordinationV1().Leases("garden").Get(context.Background(), "test", metav1.GetOptions{})
	if h := ptr.Deref(lease.Spec.HolderIdentity, ""); h != "" {
		t.Errorf("lease still held by %q after a clean stop", h)
	}
}

func TestRunReturnsWhenWorkEnds(t *testing.T) {
	e := &Elector{Config: config(true), Client: fake.NewClientset(), Identity: "me"}
	err := e.Run(context.Background(), func(context.Context) {})
	if err != nil && !errors.Is(err, ErrLeaseLost) {
		t.Fatal(err)
	}
	if err != nil {
		t.Errorf("work returning by itself gave %v, want nil", err)
	}
}

// TestRenewalsOpenTheFence: the fence opens once the lease is acquired, stays
// open while it is renewed, and closes once the lease is released.
func TestRenewalsOpenTheFence(t *testing.T) {
	f := NewFence("leaderelection-test", nil)
	e := &Elector{Config: config(true), Client: fake.NewClientset(), Identity: "me", Fence: f}
	ctx, cancel := context.WithCancel(context.Background())
	opened := make(chan error, 1)
	done := make(chan error)
	go func() {
		done <- e.Run(ctx, func(workCtx context.Context) {
			deadline := time.Now().Add(10 * time.Second)
			for f.Check() != nil && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			opened <- f.Check()
			<-workCtx.Done()
		})
	}()
	select {
	case err := <-opened:
		if err != nil {
			t.Fatalf("while leading: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("work did not start")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := f.Check(); !IsFenced(err) {
		t.Errorf("after releasing the lease: %v, want fenced", err)
	}
}

// TestStopReleasesOnlyAfterWorkReturns: a leader told to stop keeps its lease,
// and its fence open, until its work has returned, so that writes the work
// finishes on its way out (an eviction's status, queued Events) are not
// refused half-way; then the lease is released.
func TestStopReleasesOnlyAfterWorkReturns(t *testing.T) {
	client := fake.NewClientset()
	f := NewFence("leaderelection-stop-test", nil)
	e := &Elector{Config: config(true), Client: client, Identity: "me", Fence: f}
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	stopping := make(chan struct{})
	finish := make(chan struct{})
	type seen struct {
		holder   string
		fenceErr error
	}
	sawOnWayOut := make(chan seen, 1)
	done := make(chan error)
	go func() {
		done <- e.Run(ctx, func(workCtx context.Context) {
			close(started)
			<-workCtx.Done()
			close(stopping)
			// Finishing up takes longer than the renew deadline: the lease
			// must be renewed meanwhile, not released.
			<-finish
			lease, err := client.CoordinationV1().Leases("garden").Get(context.Background(), "test", metav1.GetOptions{})
			s := seen{fenceErr: f.Check()}
			if err == nil {
				s.holder = ptr.Deref(lease.Spec.HolderIdentity, "")
			}
			sawOnWayOut <- s
		})
	}()
	// Wait until the work runs with an open fence, then tell it to stop.
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("work did not start")
	}
	if err := f.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case <-stopping:
	case <-time.After(10 * time.Second):
		t.Fatal("the work was not told to stop")
	}
	time.Sleep(2 * config(true).RenewDeadline.Duration) // the work's own slow finish, not synchronisation
	close(finish)
	s := <-sawOnWayOut
	if s.holder != "me" || s.fenceErr != nil {
		t.Errorf("while the stopping work finished: lease held by %q, fence %v; want held by me and open", s.holder, s.fenceErr)
	}
	if err := <-done; err != nil {
		t.Errorf("Run after cancel: %v, want nil", err)
	}
	lease, _ := client.CoordinationV1().Leases("garden").Get(context.Background(), "test", metav1.GetOptions{})
	if h := ptr.Deref(lease.Spec.HolderIdentity, ""); h != "" {
		t.Errorf("lease still held by %q after the work returned", h)
	}
}
