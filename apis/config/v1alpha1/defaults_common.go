package v1alpha1

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	componentbaseconfigv1alpha1 "k8s.io/component-base/config/v1alpha1"
	logsapi "k8s.io/component-base/logs/api/v1"
	"k8s.io/utils/ptr"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
)

// LeasesResourceLock is the only leader election lock graft supports.
const LeasesResourceLock = "leases"

// CommonDefaults are the values that differ between components.
type CommonDefaults struct {
	// LeaseName is the default name of the leader election Lease.
	LeaseName string
	// HealthProbeBindAddress is the default health probe address.
	HealthProbeBindAddress string
	// MetricsBindAddress is the default metrics address.
	MetricsBindAddress string
}

// Default fills the unset common fields. The client's QPS and burst are higher
// than client-go's (5/10) because a daemon writes once per object it handles;
// the content type is protobuf, which only the clients of built-in kinds use
// (custom resources are always sent as JSON, see ClientConnection).
func (c *CommonConfiguration) Default(d CommonDefaults) {
	cc := &c.ClientConnection
	if cc.ContentType == "" {
		cc.ContentType = "application/vnd.kubernetes.protobuf"
	}
	if cc.QPS == 0 {
		cc.QPS = 100
	}
	if cc.Burst == 0 {
		cc.Burst = 130
	}

	le := &c.LeaderElection
	if le.LeaderElect == nil {
		le.LeaderElect = ptr.To(true)
	}
	zero := metav1.Duration{}
	if le.LeaseDuration == zero {
		le.LeaseDuration = metav1.Duration{Duration: 15 * time.Second}
	}
	if le.RenewDeadline == zero {
		le.RenewDeadline = metav1.Duration{Duration: 10 * time.Second}
	}
	if le.RetryPeriod == zero {
		le.RetryPeriod = metav1.Duration{Duration: 2 * time.Second}
	}
	if le.ResourceLock == "" {
		le.ResourceLock = LeasesResourceLock
	}
	if le.ResourceName == "" {
		le.ResourceName = d.LeaseName
	}
	if le.ResourceNamespace == "" {
		le.ResourceNamespace = corev1alpha1.GardenNamespace
	}

	if c.Server.HealthProbeBindAddress == "" {
		c.Server.HealthProbeBindAddress = d.HealthProbeBindAddress
	}
	if c.Server.MetricsBindAddress == "" {
		c.Server.MetricsBindAddress = d.MetricsBindAddress
	}

	// text format, 5s flush frequency, unbuffered output streams.
	logsapi.SetRecommendedLoggingConfiguration(&c.Logging)
}

// IsLeaderElectionEnabled tells whether the component must hold the lease to work.
func IsLeaderElectionEnabled(le componentbaseconfigv1alpha1.LeaderElectionConfiguration) bool {
	return le.LeaderElect == nil || *le.LeaderElect
}
