// Package gardener holds the integration tests that run against Gardener's
// real API server: test/framework starts gardener-apiserver (built once per
// machine by `hack/install-deps.sh gardener-apiserver`) beside etcd and
// kube-apiserver and registers core.gardener.cloud and Gardener's other groups
// through APIServices. The tests build a landscape that Gardener's own
// validation and admission accept, pin the binding rules graft's scheduler
// relies on, and run graft-scheduler on core.gardener.cloud against it. They use unstructured objects, so that graft's go.mod does not
// take on Gardener's module. They carry the build tag gardener, not
// integration: `make test-gardener` builds gardener-apiserver when the machine
// lacks it and runs them; `make test` only vets them until graft runs on
// Gardener.
package gardener
