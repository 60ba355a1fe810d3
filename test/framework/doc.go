// Package framework starts and stops a local garden control plane (etcd and
// kube-apiserver on loopback, with graft's CRDs installed) for integration and
// end-to-end tests, the way envtest does, but with nothing downloaded at test
// time: etcd comes from Debian's etcd-server package and kube-apiserver is built
// once per machine by hack/build-kube-apiserver.sh from the Go module proxy.
//
// On request (Options.Gardener, or PrepareGardener and Gardener.Start) it also
// runs Gardener's own API server, gardener-apiserver, built once per machine by
// hack/build-gardener-apiserver.sh, against the same etcd and registered with
// kube-apiserver's aggregation layer, so that tests meet core.gardener.cloud's
// real validation, admission and subresources.
//
// For tests and benchmarks that run graft's daemons as processes it builds
// them (BuildBinaries), starts a binary the way it starts etcd and
// kube-apiserver (StartProcess) and reads a sample off a /metrics endpoint
// (ScrapeMetrics, MetricSample).
//
// hack/local-garden.sh uses the same code (through hack/localgarden) so that the
// demo and the tests run the very same control plane.
package framework
