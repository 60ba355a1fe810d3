package descheduler

import (
	"context"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/rest"
	"k8s.io/component-base/metrics/legacyregistry"

	graftscheme "github.com/graft-dev/client-go/clientset/versioned/scheme"
	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/component/clientconn"
	"github.com/graft-dev/graft/pkg/component/eventrecorder"
	"github.com/graft-dev/graft/pkg/component/fence"
	"github.com/graft-dev/graft/pkg/component/runner"
)

// Name is the component's name: its user agent and Event source.
const Name = "graft-descheduler"

// RunOptions tune RunComponent.
type RunOptions struct {
	// Identity tells replicas apart in leader election; empty means hostname
	// plus a random suffix.
	Identity string
	// Registerer receives the metrics; nil is component-base's legacy
	// registry, which the /metrics endpoint serves. Tests running several
	// instances in one process pass their own registries.
	Registerer prometheus.Registerer
	// Setup, when set, is called with the runner and the descheduler once
	// both are built, before anything starts.
	Setup func(*runner.Runner, *Descheduler)
}

// RunComponent runs graft-descheduler as a process does: health and metrics
// endpoints, warm informers on every replica, descheduling only on the
// leader. It returns when ctx ends (nil), after the single pass of interval
// 0, when the lease is lost, or on failure. cfg must be defaulted and
// validated; restConfig is the garden's (clientConnection already applied).
func RunComponent(ctx context.Context, cfg *configv1alpha1.DeschedulerConfiguration, restConfig *rest.Config, opts RunOptions) error {
	clients, err := clientconn.NewClients(restConfig, Name)
	if err != nil {
		return err
	}
	reg := opts.Registerer
	if reg == nil {
		reg = legacyregistry.Registerer()
	}
	metrics, err := NewMetrics(reg)
	if err != nil {
		return fmt.Errorf("registering metrics: %w", err)
	}
	// Each eviction emits two Events; enough writers keep them off the
	// eviction's path.
	recorder := eventrecorder.New(clients.Kubernetes, graftscheme.Scheme, Name, max(2, int(cfg.ConcurrentEvictions)))
	defer recorder.ShutdownWithin(5 * time.Second)
	d, err := New(Options{
		Config:   cfg,
		Graft:    clients.Graft,
		Kube:     clients.Kubernetes,
		Recorder: recorder,
		Metrics:  metrics,
	})
	if err != nil {
		return err
	}
	r := runner.New(Name, cfg.CommonConfiguration, clients, opts.Identity)
	r.BeforeRelease = func() { recorder.ShutdownWithin(5 * time.Second) }
	r.Server.AddInformersSyncedCheck(d.Ready)
	trackInformers(clients.Fence, d, cfg.RegionConfigNamespace)
	if opts.Setup != nil {
		opts.Setup(r, d)
	}
	ctx, cancel := context.WithCancel(ctx)
	// Deferred calls run last in, first out: cancel stops the informers
	// before Shutdown waits for them.
	defer d.Shutdown()
	defer cancel()
	return r.Run(ctx,
		func(ctx context.Context) error {
			d.Start(ctx)
			return nil
		},
		d.Run,
	)
}

// trackInformers makes writes after a gap in lease renewals wait until the
// descheduler's views are current.
func trackInformers(f *fence.Fence, d *Descheduler, regionConfigNamespace string) {
	core := d.graftInformers.Core().V1alpha1()
	gv := v1alpha1.SchemeGroupVersion
	f.Track(core.Seeds().Informer(), gv.WithResource("seeds"), "", "")
	f.Track(core.Shoots().Informer(), gv.WithResource("shoots"), "", "")
	f.Track(core.CloudProfiles().Informer(), gv.WithResource("cloudprofiles"), "", "")
	f.Track(d.kubeInformers.Core().V1().ConfigMaps().Informer(), corev1.SchemeGroupVersion.WithResource("configmaps"), regionConfigNamespace,
		labels.SelectorFromSet(labels.Set{v1alpha1.LabelSchedulingPurpose: v1alpha1.LabelSchedulingPurposeRegionConfig}).String())
}
