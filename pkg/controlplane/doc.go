// Package controlplane starts and stops a local garden control plane: etcd and
// kube-apiserver on loopback with graft's CRDs and admission policies, and on
// request Gardener's gardener-apiserver behind the aggregation layer. Nothing
// is downloaded at test time: the binaries are built once per machine
// (hack/build-kube-apiserver.sh,
// hack/build-gardener.sh).
//
// It owns the control plane's certificates (pki.go), the processes it runs
// (StartProcess, BuildBinaries), applying manifests (Apply) and the operators
// and admission parameters installed. The tests (through test/framework),
// hack/local-garden.sh and the demo all run this one control plane.
package controlplane
