// Package api holds integration tests of graft's API against a real
// kube-apiserver: the CRDs, the generated clientset and informers, the status
// subresource and the CRD validation.
package api
