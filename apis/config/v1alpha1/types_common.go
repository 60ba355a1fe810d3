package v1alpha1

import (
	componentbaseconfigv1alpha1 "k8s.io/component-base/config/v1alpha1"
	logsapi "k8s.io/component-base/logs/api/v1"
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
	// Logging is component-base's logging configuration: verbosity, format
	// (text, the default, or json), vmodule and flushFrequency. -v,
	// --logging-format and the other logging flags given on the command line
	// override the file's values.
	// +optional
	Logging logsapi.LoggingConfiguration `json:"logging"`
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

// DisabledBindAddress disables a server endpoint.
const DisabledBindAddress = "0"

// Common returns the shared settings; every kind inlines them, so every kind
// has this method.
func (c *CommonConfiguration) Common() *CommonConfiguration { return c }
