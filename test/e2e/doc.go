// Package e2e is graft's end-to-end suite (ginkgo v2 and gomega, build tag
// e2e). It runs against the cluster named by $KUBECONFIG when that is set
// (for example a kind cluster, see hack/kind-e2e.sh) and otherwise against a
// local control plane it starts itself (test/framework). It builds the real
// binaries and runs each component as its own process, authenticated as the
// ServiceAccount its Helm chart creates, with exactly the RBAC that chart
// grants, so a missing permission fails the suite.
//
// Every scenario runs under the invariant monitor (monitor_test.go, package
// invariant), which watches shoots, seeds, cloud profiles and region
// ConfigMaps from the first scenario to the end: a spec fails on a violation
// recorded while it ran, and the suite fails at its end on any violation ever
// recorded, even one a component repaired afterwards. Steps that depend on a
// component having seen an object wait for a fact only that component can
// produce (an Event, a status field, a metric, a decision), never for time.
//
// Run it with:
//
//	go test -tags e2e -count=1 -timeout 40m ./test/e2e/... -args -ginkgo.v
package e2e
