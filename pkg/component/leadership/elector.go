package leadership

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	componentbaseconfigv1alpha1 "k8s.io/component-base/config/v1alpha1"
	"k8s.io/klog/v2"
)

// ErrLeaseLost is returned by Run when the lease was lost while working.
var ErrLeaseLost = errors.New("leader election lost")

// Elector runs work under a Lease.
type Elector struct {
	// Config is the leaderElection section; LeaderElect false runs the work without a lease.
	Config componentbaseconfigv1alpha1.LeaderElectionConfiguration
	// Client writes the Lease.
	Client kubernetes.Interface
	// Identity tells replicas apart; empty means hostname plus a random suffix.
	Identity string
	// Fence, when set, is armed while Run elects: each successful renewal
	// opens it for RenewDeadline, and losing or releasing the lease closes it.
	Fence *Fence

	leading atomic.Bool
	elector atomic.Pointer[leaderelection.LeaderElector]
}

// NewIdentity returns a replica identity: the hostname plus a random suffix, so
// that two processes on one host (or two instances in one test) differ.
func NewIdentity() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "unknown"
	}
	return host + "_" + uuid.NewString()
}

// Run blocks until ctx ends or the lease is lost. While this replica leads, it
// runs work with a context that is canceled the moment the lease is lost or ctx
// ends; Run then waits for work to return. Losing the lease returns
// ErrLeaseLost, so that the caller can exit and be restarted as a standby; a
// canceled ctx, or work returning by itself, returns nil and releases the lease so that a standby takes over
// without waiting for it to expire.
func (e *Elector) Run(ctx context.Context, work func(ctx context.Context)) error {
	if e.Config.LeaderElect != nil && !*e.Config.LeaderElect {
		e.leading.Store(true)
		defer e.leading.Store(false)
		work(ctx)
		return nil
	}
	identity := e.Identity
	if identity == "" {
		identity = NewIdentity()
	}
	lock, err := resourcelock.New(resourcelock.LeasesResourceLock,
		e.Config.ResourceNamespace, e.Config.ResourceName,
		e.Client.CoreV1(), e.Client.CoordinationV1(),
		resourcelock.ResourceLockConfig{Identity: identity})
	if err != nil {
		return fmt.Errorf("creating the Lease lock %s/%s: %w", e.Config.ResourceNamespace, e.Config.ResourceName, err)
	}
	logger := klog.FromContext(ctx).WithValues("lease", e.Config.ResourceNamespace+"/"+e.Config.ResourceName, "identity", identity)
	if e.Fence != nil {
		// client-go cancels the work only after RenewDeadline counted from
		// when the process runs again; the fence closes when the last renewal
		// is older than RenewDeadline, whatever happened in between, which
		// is at least LeaseDuration minus RenewDeadline before another
		// replica can take over.
		e.Fence.Arm(klog.NewContext(ctx, logger), e.Config.RenewDeadline.Duration)
		lock = &renewals{Interface: lock, fence: e.Fence, identity: identity, now: time.Now}
		defer e.Fence.Lost()
	}

	// runCtx bounds client-go's election loop, which releases the lease when
	// runCtx ends. It ends when work has returned (by itself, or after ctx
	// ended), or when ctx ends while no work runs: a leader that is told to
	// stop keeps renewing, and so keeps its fence open, until its work has
	// finished the writes it started; only then does a standby take over.
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	// client-go starts OnStartedLeading in a goroutine that may begin after
	// le.Run has returned; mu and returned make sure that work either never
	// starts then or is waited for.
	var (
		mu        sync.Mutex
		returned  bool
		working   bool
		running   sync.WaitGroup
		workEnded atomic.Bool
	)
	stopIdle := context.AfterFunc(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		if !working {
			cancel()
		}
	})
	defer stopIdle()
	le, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock:            lock,
		LeaseDuration:   e.Config.LeaseDuration.Duration,
		RenewDeadline:   e.Config.RenewDeadline.Duration,
		RetryPeriod:     e.Config.RetryPeriod.Duration,
		ReleaseOnCancel: true,
		Name:            e.Config.ResourceName,
		Callbacks: leaderelection.LeaderCallbacks{
			// leaderCtx is canceled by client-go as soon as renewal fails.
			OnStartedLeading: func(leaderCtx context.Context) {
				mu.Lock()
				if returned || ctx.Err() != nil {
					mu.Unlock()
					cancel()
					return
				}
				working = true
				running.Add(1)
				mu.Unlock()
				defer running.Done()
				// The work stops when the lease is lost or when ctx ends.
				workCtx, stopWork := context.WithCancel(leaderCtx)
				defer stopWork()
				defer context.AfterFunc(ctx, stopWork)()
				e.leading.Store(true)
				logger.Info("Acquired the lease, starting work")
				work(workCtx)
				if leaderCtx.Err() == nil && ctx.Err() == nil {
					workEnded.Store(true)
				}
				// Release the lease (or stop trying to renew a lost one).
				cancel()
			},
			OnStoppedLeading: func() {
				e.leading.Store(false)
				if e.Fence != nil {
					e.Fence.Lost()
				}
				logger.Info("Stopped leading")
			},
			OnNewLeader: func(id string) {
				if id != identity {
					logger.Info("Another replica leads", "leader", id)
				}
			},
		},
	})
	if err != nil {
		return fmt.Errorf("configuring leader election: %w", err)
	}
	e.elector.Store(le)
	le.Run(runCtx)
	mu.Lock()
	returned = true
	mu.Unlock()
	running.Wait()
	e.leading.Store(false)
	if ctx.Err() != nil || workEnded.Load() {
		return nil
	}
	return ErrLeaseLost
}

// IsLeader tells whether this replica currently holds the lease (always true
// while working without leader election).
func (e *Elector) IsLeader() bool { return e.leading.Load() }

// Check is a readiness check: when this replica leads, it fails if the lease
// has not been renewed within the lease duration plus a grace of maxTolerable.
// A standby is ready (it is healthy, merely waiting).
func (e *Elector) Check(maxTolerable time.Duration) func() error {
	return func() error {
		le := e.elector.Load()
		if le == nil || !e.leading.Load() {
			return nil
		}
		return le.Check(maxTolerable)
	}
}

// renewals tells the fence about every successful write of the lease record
// holding it for this replica. The time recorded is taken before the request
// is sent: other replicas count the lease from when they observe the write,
// which is later.
type renewals struct {
	resourcelock.Interface
	fence    *Fence
	identity string
	now      func() time.Time
}

func (r *renewals) Create(ctx context.Context, ler resourcelock.LeaderElectionRecord) error {
	start := r.now()
	err := r.Interface.Create(ctx, ler)
	r.observe(start, ler, err)
	return err
}

func (r *renewals) Update(ctx context.Context, ler resourcelock.LeaderElectionRecord) error {
	start := r.now()
	err := r.Interface.Update(ctx, ler)
	r.observe(start, ler, err)
	return err
}

func (r *renewals) observe(start time.Time, ler resourcelock.LeaderElectionRecord, err error) {
	switch {
	case err == nil && ler.HolderIdentity == r.identity:
		r.fence.Renewed(start)
	case ler.HolderIdentity != r.identity:
		// Releasing the lease (an empty holder): no more writes.
		r.fence.Lost()
	}
}
