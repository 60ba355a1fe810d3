// Package clientconn builds REST configs and clients from a component's
// clientConnection section: a kubeconfig file, or the in-cluster service account
// when none is named, with the configured QPS, burst and content types.
package clientconn
