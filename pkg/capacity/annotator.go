package capacity

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"golang.org/x/sync/errgroup"
	"k8s.io/client-go/tools/cache"
	k8smetrics "k8s.io/component-base/metrics"
	"k8s.io/utils/clock"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/pkg/component"
	"github.com/graft-dev/graft/pkg/component/cachetrim"
	"github.com/graft-dev/graft/pkg/garden"
)

// Name is the component's name: its user agent, Event source and field manager.
const Name = FieldManager

// eventWriters is how many Events are written at once; the annotator emits
// few Events, so a small pool is enough.
const eventWriters = 2

// Options are what in-process callers may change besides the configuration
// and the clients.
type Options struct {
	// Identity tells replicas apart in leader election; empty means hostname
	// plus a random suffix.
	Identity string
	// Registry receives the metrics; nil means the process's metrics in
	// component-base's legacy registry, which the /metrics endpoint serves.
	// Tests running several instances in one process pass their own.
	Registry k8smetrics.KubeRegistry
	// ForecastClock is the forecast's and scaler's time source (the
	// arrivals' window, cool-downs, how long a pool has been low); nil is
	// the real clock. The forecast is still computed every period of real
	// time.
	ForecastClock clock.WithTicker
}

// Annotator is graft-capacity-annotator: the capacity controller with its
// informers under the shared component runner. Create it with New, start it
// with Run.
type Annotator struct {
	runner     *component.Runner
	informers  garden.Informers
	controller *controller
	forecaster *forecaster
	workers    int
}

// New returns an annotator for a defaulted and validated configuration: its
// runner, Event recorder, metrics, informers and controller.
func New(cfg *configv1alpha1.CapacityAnnotatorConfiguration, clients component.Clients, opts Options) (*Annotator, error) {
	if clients.Kubernetes == nil {
		return nil, errors.New("the Kubernetes client is required")
	}
	// The annotator counts shoots per seed: its shoots keep their placement
	// alone (cachetrim.Placement), seeds all but managedFields. The forecast
	// also decides for shoots that wait for a seed, which it keeps whole
	// (cachetrim.Unbound).
	transform := cachetrim.Placement
	if cfg.Forecast.Enabled {
		transform = cachetrim.Unbound
	}
	var dyn garden.Dynamic
	var sets *garden.ManagedSeedSets
	if cfg.API == configv1alpha1.APIGardener {
		if clients.CustomResources == nil {
			return nil, errors.New("api core.gardener.cloud needs the dynamic client")
		}
		var err error
		if dyn, err = garden.NewDynamic(clients.CustomResources); err != nil {
			return nil, fmt.Errorf("building the dynamic client: %w", err)
		}
		sets = garden.NewManagedSeedSets(dyn)
	}
	client, informers, err := garden.Open(string(cfg.API), clients, dyn, transform)
	if err != nil {
		return nil, err
	}
	m, err := metricsFor(opts.Registry)
	if err != nil {
		return nil, fmt.Errorf("registering metrics: %w", err)
	}
	m.zeroSeries()
	r := component.NewRunner(Name, cfg.CommonConfiguration, clients, component.RunnerOptions{
		Identity: opts.Identity, EventWriters: eventWriters, EventFlushTimeout: 5 * time.Second,
	})
	seeds, shoots := informers.Seeds(), informers.Shoots()
	ctrl, err := newController(controllerOptions{
		Client:   client,
		Seeds:    seeds.Informer,
		Shoots:   shoots.Informer,
		Recorder: r.Recorder,
		Metrics:  m,
		Config:   cfg,
	})
	if err != nil {
		return nil, err
	}
	r.Server.AddInformersSyncedCheck(ctrl.HasSynced)
	a := &Annotator{runner: r, informers: informers, controller: ctrl, workers: int(cfg.ConcurrentSyncs)}
	if cfg.Forecast.Enabled {
		clk := opts.ForecastClock
		if clk == nil {
			clk = clock.RealClock{}
		}
		if a.forecaster, err = newForecaster(cfg, client, sets, clients.Kubernetes, informers, r.Recorder, m, clk, r.Kubernetes, r.Elector); err != nil {
			return nil, err
		}
	}
	// After a gap in lease renewals, writes wait until these views are current.
	garden.Track(clients.Fence, seeds, shoots)
	return a, nil
}

// Run runs the annotator until ctx ends (nil), the lease is lost, or the
// controller fails. An Annotator runs once.
func (a *Annotator) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	// Deferred calls run last in, first out: cancel stops the informers
	// before Shutdown waits for them.
	defer a.informers.Shutdown()
	defer cancel()
	return a.runner.Run(ctx, a.startInformers, a.annotate)
}

// startInformers runs on every replica: a new leader starts with the usage
// already counted.
func (a *Annotator) startInformers(ctx context.Context) error {
	a.informers.Start(ctx.Done())
	return nil
}

// annotate runs while leading: the controller and, when enabled, the
// forecast; either failing stops both.
func (a *Annotator) annotate(ctx context.Context) error {
	if a.forecaster == nil {
		return a.controller.Run(ctx, a.workers)
	}
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error { return a.controller.Run(ctx, a.workers) })
	g.Go(func() error {
		if !cache.WaitForCacheSync(ctx.Done(), a.controller.HasSynced) {
			return nil
		}
		return a.forecaster.Run(ctx)
	})
	return g.Wait()
}

// HealthAddr is where /healthz and /readyz are served once Run started (nil when disabled).
func (a *Annotator) HealthAddr() net.Addr { return a.runner.Server.HealthAddr() }

// MetricsAddr is where /metrics is served once Run started (nil when disabled).
func (a *Annotator) MetricsAddr() net.Addr { return a.runner.Server.MetricsAddr() }

// HasSynced tells whether the informers have synced (on a standby replica too).
func (a *Annotator) HasSynced() bool { return a.controller.HasSynced() }
