// Package e2e is graft's end-to-end suite (ginkgo v2 and gomega, build tag
// e2e). It runs against the cluster named by $KUBECONFIG when that is set
// (for example a kind cluster, see hack/kind-e2e.sh) and otherwise against a
// local control plane it starts itself (test/framework). It builds the real
// binaries and runs each component as its own process, authenticated as the
// ServiceAccount its Helm chart creates, with exactly the RBAC that chart
// grants, so a missing permission fails the suite.
//
// Run it with:
//
//	go test -tags e2e -timeout 30m ./test/e2e/
package e2e
