package descheduler

import (
	"context"
	"net"

	"github.com/graft-dev/graft/pkg/garden"

	"k8s.io/component-base/metrics"
	"k8s.io/utils/clock"

	"github.com/graft-dev/graft/pkg/component/leadership"
	"github.com/graft-dev/graft/pkg/descheduler/framework"
)

// Name is the component's name: its user agent and Event source.
const Name = "graft-descheduler"

// queueName names the work queue of seeds in client-go's workqueue metrics.
const queueName = "graft_descheduler"

// Options are what in-process callers may change besides the configuration
// and the clients.
type Options struct {
	// Identity tells replicas apart in leader election; empty means hostname
	// plus a random suffix.
	Identity string
	// Registry receives the metrics; nil means the process's metrics in
	// component-base's legacy registry, which the /metrics endpoint serves.
	// Tests running several instances in one process pass their own.
	Registry metrics.KubeRegistry
	// Clock is the real clock when nil.
	Clock clock.WithTicker
	// Plugins is DefaultRegistry() when nil.
	Plugins framework.Registry
}

// Run runs graft-descheduler as a process does: health and metrics
// endpoints, warm informers on every replica, descheduling only on the
// leader. It returns when ctx ends (nil), after the single pass of interval
// 0, when the lease is lost, or on failure. A Descheduler runs once.
func (d *Descheduler) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	// Deferred calls run last in, first out: cancel stops the informers
	// before shutdownInformers waits for them.
	defer d.shutdownInformers()
	defer cancel()
	return d.runner.Run(ctx, d.startInformers, d.deschedule)
}

// MetricsAddr is where /metrics is served once Run started (nil when disabled).
func (d *Descheduler) MetricsAddr() net.Addr { return d.runner.Server.MetricsAddr() }

// IsLeader tells whether this instance holds the lease and deschedules.
func (d *Descheduler) IsLeader() bool { return d.runner.Elector.IsLeader() }

// Ready reports whether the informers have synced (on a standby replica
// too); until then the descheduler does nothing.
func (d *Descheduler) Ready() bool {
	for _, synced := range d.synced {
		if !synced() {
			return false
		}
	}
	return true
}

// trackInformers makes writes after a gap in lease renewals wait until the
// descheduler's views are current.
func trackInformers(f *leadership.Fence, d *Descheduler) {
	tracked := []garden.Informer{d.informers.Seeds(), d.informers.Shoots(), d.informers.CloudProfiles(), d.regionConfigs.ConfigMaps()}
	garden.Track(f, append(tracked, d.informers.Indexed()...)...)
}
