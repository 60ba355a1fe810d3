package annotator

import (
	"context"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/rest"
	"k8s.io/component-base/metrics/legacyregistry"

	graftscheme "github.com/graft-dev/client-go/clientset/versioned/scheme"
	graftinformers "github.com/graft-dev/client-go/informers/externalversions"
	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/capacity/controller"
	"github.com/graft-dev/graft/pkg/capacity/metrics"
	"github.com/graft-dev/graft/pkg/component/clientconn"
	"github.com/graft-dev/graft/pkg/component/eventrecorder"
	"github.com/graft-dev/graft/pkg/component/runner"
)

// Name is the component's name: its user agent, Event source and field manager.
const Name = controller.FieldManager

// eventWriters is how many Events are written at once; the annotator emits
// few Events, so a small pool is enough.
const eventWriters = 2

// Options tune Run.
type Options struct {
	// Identity tells replicas apart in leader election; empty means hostname
	// plus a random suffix.
	Identity string
	// Registerer receives the metrics; nil is component-base's legacy
	// registry, which the /metrics endpoint serves. Tests running several
	// instances in one process pass their own registries.
	Registerer prometheus.Registerer
	// Setup, when set, is called with the runner and the controller once
	// both are built, before anything starts (tests use it to read the bound
	// addresses and the usage counts).
	Setup func(*runner.Runner, *controller.Controller)
}

// Run runs the annotator until ctx ends (nil), the lease is lost, or the
// controller fails. cfg must be defaulted and validated; restConfig is the
// garden's (clientConnection already applied).
func Run(ctx context.Context, cfg *configv1alpha1.CapacityAnnotatorConfiguration, restConfig *rest.Config, opts Options) error {
	clients, err := clientconn.NewClients(restConfig, Name)
	if err != nil {
		return err
	}
	reg := opts.Registerer
	if reg == nil {
		reg = legacyregistry.Registerer()
	}
	m, err := metrics.New(reg)
	if err != nil {
		return fmt.Errorf("registering metrics: %w", err)
	}
	recorder := eventrecorder.New(clients.Kubernetes, graftscheme.Scheme, Name, eventWriters)
	defer recorder.ShutdownWithin(5 * time.Second)

	factory := graftinformers.NewSharedInformerFactoryWithOptions(clients.Graft, 0,
		graftinformers.WithTransform(dropShootManagedFields))
	ctrl, err := controller.New(controller.Options{
		Client:   clients.Graft,
		Seeds:    factory.Core().V1alpha1().Seeds(),
		Shoots:   factory.Core().V1alpha1().Shoots(),
		Recorder: recorder,
		Metrics:  m,
		Config:   cfg,
	})
	if err != nil {
		return err
	}

	r := runner.New(Name, cfg.CommonConfiguration, clients, opts.Identity)
	r.BeforeRelease = func() { recorder.ShutdownWithin(5 * time.Second) }
	r.Server.AddInformersSyncedCheck(ctrl.HasSynced)
	// After a gap in lease renewals, writes wait until these views are current.
	clients.Fence.Track(factory.Core().V1alpha1().Seeds().Informer(), v1alpha1.SchemeGroupVersion.WithResource("seeds"), "", "")
	clients.Fence.Track(factory.Core().V1alpha1().Shoots().Informer(), v1alpha1.SchemeGroupVersion.WithResource("shoots"), "", "")
	if opts.Setup != nil {
		opts.Setup(r, ctrl)
	}

	ctx, cancel := context.WithCancel(ctx)
	// Deferred calls run last in, first out: cancel stops the informers
	// before Shutdown waits for them.
	defer factory.Shutdown()
	defer cancel()
	return r.Run(ctx,
		func(ctx context.Context) error {
			// Every replica keeps its caches warm, so that a new leader
			// starts with the usage already counted.
			factory.Start(ctx.Done())
			return nil
		},
		func(ctx context.Context) error {
			return ctrl.Run(ctx, int(cfg.ConcurrentSyncs))
		},
	)
}

// dropShootManagedFields keeps the shoot cache small: the annotator reads only
// the seed names of shoots. Seeds keep their managed fields, which tell
// whether the seed's agent publishes capacity.
func dropShootManagedFields(obj any) (any, error) {
	if shoot, ok := obj.(*v1alpha1.Shoot); ok {
		shoot.ManagedFields = nil
	}
	return obj, nil
}
