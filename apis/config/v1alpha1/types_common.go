package v1alpha1

import (
	componentbaseconfigv1alpha1 "k8s.io/component-base/config/v1alpha1"
)

// CommonConfiguration is what every graft daemon configures the same way. Kinds
// embed it inline, so its fields appear at the top level of each file.
type CommonConfiguration struct {
	// ClientConnection configures the connection to the garden API server:
	// kubeconfig (empty means in-cluster), qps and burst. contentType
	// (application/vnd.kubernetes.protobuf by default, or application/json)
	// and acceptContentTypes apply to the requests for built-in kinds only
	// (Events, ConfigMaps, the Lease): the API server serves custom resources
	// in JSON only, so seeds, shoots and cloud profiles are always read and
	// written as JSON.
	// +optional
	ClientConnection componentbaseconfigv1alpha1.ClientConnectionConfiguration `json:"clientConnection"`
	// LeaderElection configures the Lease-based leader election between replicas.
	// +optional
	LeaderElection componentbaseconfigv1alpha1.LeaderElectionConfiguration `json:"leaderElection"`
	// Server configures the health probe and metrics endpoints.
	// +optional
	Server ServerConfiguration `json:"server"`
	// Logging configures the log verbosity and format.
	// +optional
	Logging LoggingConfiguration `json:"logging"`
}

// ServerConfiguration names where the daemon serves /healthz, /readyz and /metrics.
// An address is host:port; port 0 picks a free port; the value "0" disables the endpoint.
// When both addresses are equal, one listener serves all three paths.
type ServerConfiguration struct {
	// HealthProbeBindAddress is where /healthz and /readyz are served.
	// +optional
	HealthProbeBindAddress string `json:"healthProbeBindAddress,omitempty"`
	// MetricsBindAddress is where /metrics is served.
	// +optional
	MetricsBindAddress string `json:"metricsBindAddress,omitempty"`
}

// LogFormat is how log lines are written.
type LogFormat string

const (
	// LogFormatText writes klog's text lines.
	LogFormatText LogFormat = "text"
	// LogFormatJSON writes one JSON object per line.
	LogFormatJSON LogFormat = "json"
)

// LoggingConfiguration configures logging. Standard klog flags given on the
// command line override it.
type LoggingConfiguration struct {
	// Verbosity is the klog verbosity level (0 and up).
	// +optional
	Verbosity int32 `json:"verbosity,omitempty"`
	// Format is text (default) or json.
	// +optional
	Format LogFormat `json:"format,omitempty"`
}

// DisabledBindAddress disables a server endpoint.
const DisabledBindAddress = "0"

// Common returns the shared settings; every kind inlines them, so every kind
// has this method.
func (c *CommonConfiguration) Common() *CommonConfiguration { return c }
