package component

import (
	"context"
	"fmt"
	"runtime/debug"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	graftscheme "github.com/graft-dev/client-go/clientset/versioned/scheme"
	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/pkg/component/leadership"
)

// RunnerOptions are a component's choices for its Runner besides its configuration.
type RunnerOptions struct {
	// Identity tells replicas apart; empty means hostname plus a random suffix.
	Identity string
	// EventWriters is how many Events the recorder writes at once; at least 1.
	EventWriters int
	// EventFlushTimeout bounds how long the Events still held are written out
	// before the lease is released and when Run returns; zero means 10s.
	EventFlushTimeout time.Duration
}

// Runner runs one component process (or one in-process instance in tests).
type Runner struct {
	// Name is the component's name, used in logs and as the Event source.
	Name string
	// Common is the component's common configuration (defaulted and validated).
	Common configv1alpha1.CommonConfiguration
	// Kubernetes writes the Lease (unfenced).
	Kubernetes kubernetes.Interface
	// Identity tells replicas apart; empty means hostname plus a random suffix.
	Identity string

	// Server serves /healthz, /readyz and /metrics; components add their own ready checks to it before Run.
	Server *Server
	// Elector holds the lease; valid after New.
	Elector *leadership.Elector
	// Recorder records the component's Events through the fenced Kubernetes
	// client (nil when the clients have none, as in some unit tests). Run
	// writes out the Events it still holds after the work has returned and
	// before the lease is released, while writes still pass the fence (a
	// closed fence would refuse them), and again when Run returns.
	Recorder *EventRecorder

	flushTimeout time.Duration
}

// NewRunner returns a Runner for the given configuration, with the component's
// Event recorder. The lease is held through clients.Lease; clients.Fence
// (when set) guards the component's other writes with that lease.
func NewRunner(name string, common configv1alpha1.CommonConfiguration, clients Clients, opts RunnerOptions) *Runner {
	lease := clients.Lease
	if lease == nil {
		// Clients assembled by hand (unit tests) have no separate Lease client.
		lease = clients.Kubernetes
	}
	// One identity, chosen here: what publishes on the Lease must know the
	// one the elector holds it with.
	identity := opts.Identity
	if identity == "" {
		identity = leadership.NewIdentity()
	}
	r := &Runner{
		Name:         name,
		Common:       common,
		Kubernetes:   lease,
		Identity:     identity,
		Server:       &Server{Config: common.Server},
		Elector:      &leadership.Elector{Config: common.LeaderElection, Client: lease, Identity: identity, Fence: clients.Fence},
		flushTimeout: opts.EventFlushTimeout,
	}
	if r.flushTimeout == 0 {
		r.flushTimeout = 10 * time.Second
	}
	if clients.Kubernetes != nil {
		r.Recorder = NewEventRecorder(clients.Kubernetes, graftscheme.Scheme, name, max(1, opts.EventWriters))
	}
	r.Server.AddHealthCheck("ping", func() error { return nil })
	// A leader whose lease renewal is late by more than this is not ready.
	grace := 20 * time.Second
	r.Server.AddReadyCheck("leader-election", r.Elector.Check(grace))
	return r
}

// Run serves the endpoints, calls warmUp (which should start informers and
// return once they are started, not necessarily synced), then runs lead while
// this replica holds the lease. It returns when ctx ends (nil), when lead
// returns (its error), or when the lease is lost (leadership.ErrLeaseLost).
func (r *Runner) Run(ctx context.Context, warmUp func(ctx context.Context) error, lead func(ctx context.Context) error) error {
	defer r.flushEvents()
	logger := klog.FromContext(ctx).WithValues("component", r.Name)
	// Everything started here (server, informers) stops when Run returns.
	ctx, cancel := context.WithCancel(klog.NewContext(ctx, logger))
	defer cancel()
	if err := r.Server.Start(ctx); err != nil {
		return err
	}
	if warmUp != nil {
		if err := warmUp(ctx); err != nil {
			return fmt.Errorf("starting %s: %w", r.Name, err)
		}
	}
	var leadErr error
	err := r.Elector.Run(ctx, func(leaderCtx context.Context) {
		// The lease is held, but the informers may lag behind what the
		// previous leader saw: work starts once the fence lets writes pass.
		if r.Elector.Fence.Wait(leaderCtx) != nil {
			return
		}
		// The informers' first lists and the catch-up's fresh read are
		// the largest transients of a replica's life: they leave the heap
		// at up to twice what the caches hold (a few hundred MiB at
		// 100,000 shoots). Hand the garbage back to the OS once, before the
		// work starts, so that the resident memory is what the work needs.
		debug.FreeOSMemory()
		leadErr = lead(leaderCtx)
		r.flushEvents()
	})
	if err != nil {
		return err
	}
	return leadErr
}

// flushEvents writes out the Events the recorder still holds and stops it;
// only the first call does anything.
func (r *Runner) flushEvents() {
	if r.Recorder != nil {
		r.Recorder.ShutdownWithin(r.flushTimeout)
	}
}
