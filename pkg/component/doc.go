// Package component is the runtime that graft's three daemons (graft-scheduler,
// graft-capacity-annotator, graft-descheduler) share. Each concern lives in its
// own subpackage:
//
//   - configfile: reads a config.graft.dev/v1alpha1 file strictly, defaults and validates it;
//   - clientconn: builds REST configs and clients from clientConnection;
//   - logging: applies the logging section and the standard klog flags;
//   - leadership: runs work only while holding a Lease, stopping at once when it is lost, and fences every write with that lease;
//   - healthserver: serves /healthz, /readyz (pluggable checks) and /metrics;
//   - eventrecorder: an Event recorder whose events are written concurrently and flushed on shutdown;
//   - runner: wires all of the above around a component's work function.
//   - command: the --config command line and main every daemon shares.
package component
