// Package gardener holds the integration tests that run against Gardener's
// real API server: test/framework starts gardener-apiserver (built once per
// machine by `hack/install-deps.sh gardener-apiserver`) beside etcd and
// kube-apiserver and registers core.gardener.cloud and Gardener's other groups
// through APIServices. The tests build a landscape that Gardener's own
// validation and admission accept, pin the binding rules graft's scheduler
// relies on, run graft-scheduler and graftctl on core.gardener.cloud against
// it, and drain a seed with `graftctl drain --migrate` (control-plane
// migration through shoots/binding, and Gardener's refusals of it). The
// landscape's objects come from pkg/controlplane/gardenerlandscape, which make
// demo-gardener uses too. They use unstructured objects, so that graft's
// go.mod does not take on Gardener's module. They carry the build tag
// gardener, not integration, because they need gardener-apiserver: `make
// test` and the focused `make test-gardener` build it first when the machine
// lacks it (make gardener-deps), then run them.
package gardener
