// Package framework is what graft's test suites share on top of
// pkg/controlplane: one control plane per test binary (Main, Shared, Env),
// or the cluster $KUBECONFIG names for the end-to-end suite; a component run
// until the test's cleanup (RunUntilCleanup); waiting for an observable
// fact (WaitFor); and samples read off a /metrics endpoint (ScrapeMetrics,
// MetricSample, MetricSum).
package framework
