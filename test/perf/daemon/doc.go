// Package daemon runs a graft daemon as its binary for the benchmarks, with
// the identity, RBAC and configuration its chart gives it, and measures it
// from outside: readiness, leadership, /metrics samples, CPU time and memory
// from /proc, and its writes as the API server's audit log recorded them.
package daemon
