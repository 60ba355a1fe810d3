// Package admission holds the integration tests of the admission policies
// that come with graft's CRDs (charts/graft-crds/policies), as test/framework
// installs them into the real kube-apiserver: who may choose a shoot's seed,
// and who may use protected seeds. Run them with
// `go test -tags integration ./test/integration/admission/`.
package admission
