// Package component is what every graft daemon (graft-scheduler,
// graft-capacity-annotator, graft-descheduler) is made of, so that the three
// have one shape:
//
//   - NewCommand and Main: the command line (one required --config flag, the
//     standard klog flags, component-base's --version) and a main that stops
//     on SIGINT or SIGTERM and flushes the log;
//   - LoadConfig and DecodeConfig: a config.graft.dev/v1alpha1 file decoded
//     strictly (an unknown or duplicate field is an error naming it), its
//     apiVersion and kind checked, defaulted, and validated with every invalid
//     field reported (InvalidConfigError);
//   - the logging section (verbosity, text or JSON format) applied through
//     component-base/logs; the standard klog flags win over the file;
//   - RESTConfig, ApplyClientConnection and NewClients: the clients built from
//     clientConnection (a kubeconfig, or the in-cluster service account when
//     none is named). Its content types apply to the clients of built-in
//     kinds; the graft client always speaks JSON, the only encoding the API
//     server offers for custom resources. Every write but the Lease's passes
//     through the lease's write fence. Each client waits for a rate limiter of
//     its own built from clientConnection's qps and burst, whose waits are
//     counted (graft_client_throttled_seconds, and
//     graft_client_throttled_requests_total for those over a second) and a
//     wait over a second logged at default verbosity once per episode;
//   - Server: /healthz, /readyz (named checks the component registers) and
//     /metrics (component-base's legacy registry, which also holds client-go's
//     workqueue and REST client metrics); MetricsFor gives a component its
//     metrics there, or in a registry of its own in tests, and NewCounterVec,
//     NewGauge, NewGaugeVec, NewHistogram and NewHistogramVec declare them,
//     all ALPHA;
//   - EventRecorder: client-go's Event broadcaster whose API writes are done by
//     a pool of workers, so that Events do not throttle the component, and
//     which flushes what is queued on shutdown;
//   - RunWorkers: sample-controller's worker loop (runWorker,
//     processNextWorkItem) over a component's rate-limited work queue, for
//     the component's syncHandler;
//   - Runner: all of the above around a component's work. It serves the
//     endpoints, runs the warm-up (informers) on every replica and the main
//     work only on the leader, stopping it when the lease is lost. Every
//     daemon is built as New(cfg, clients, Options), which builds its Runner
//     with NewRunner, and run with Run(ctx).
//
// Holding the Lease and fencing writes with it is package leadership;
// remembering a daemon's own writes until its informer shows them is package
// ownwrites; what the informers keep of an object is package cachetrim; the
// version every binary reports is package buildversion, kept apart so that
// graftctl can report it without growing the daemons' --version flag.
package component
