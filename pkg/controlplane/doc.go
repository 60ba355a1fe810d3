// Package controlplane starts and stops a local garden control plane (etcd and
// kube-apiserver on loopback, with graft's CRDs and admission policies
// installed) for the tests, hack/local-garden.sh and the demo, the way envtest
// does, but with nothing downloaded at test
// time: etcd comes from Debian's etcd-server package and kube-apiserver is built
// once per machine by hack/build-kube-apiserver.sh from the Go module proxy.
//
// On request (Options.Gardener, or PrepareGardener and Gardener.Start) it also
// runs Gardener's own API server, gardener-apiserver, built once per machine by
// hack/build-gardener-apiserver.sh, against the same etcd and registered with
// kube-apiserver's aggregation layer, so that tests meet core.gardener.cloud's
// real validation, admission and subresources.
//
// It owns the certificates of that control plane (pki.go), the processes it
// runs (StartProcess; BuildBinaries builds graft's daemons to run as
// processes), applying manifests (Apply) and the operators and admission
// parameters the tests and the local garden install.
//
// hack/local-garden.sh (through hack/localgarden), the demo and the tests
// (through test/framework) use this one package, so that they run the very
// same control plane.
package controlplane
