// Package healthserver serves a component's /healthz, /readyz and /metrics.
// Readiness is a list of named checks that the component registers (informers
// synced, lease held, ...); /metrics serves component-base's legacy registry,
// which also holds client-go's workqueue and REST client metrics.
package healthserver
