// Package factory owns how graftctl commands obtain their clients and default
// namespace: from the global kubeconfig flags in the binary, or from fixed
// clientsets in tests and in programs that embed the commands.
package factory
