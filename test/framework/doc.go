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
// hack/local-garden.sh uses the same code (through hack/localgarden) so that the
// demo and the tests run the very same control plane.
package framework
