// Package clientconn builds REST configs and clients from a component's
// clientConnection section: a kubeconfig file, or the in-cluster service account
// when none is named, with the configured QPS, burst and content types. The
// content types apply to the clients of built-in kinds; the graft client
// always speaks JSON, the only encoding the API server offers for custom
// resources.
package clientconn
