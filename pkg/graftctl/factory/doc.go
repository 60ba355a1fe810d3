// Package factory owns how graftctl commands obtain their clients and default
// namespace: from the global kubeconfig flags in the binary, or from fixed
// clientsets in tests and in programs that embed the commands; which API seeds
// and shoots are read through (--api, or discovery: graft's or Gardener's);
// and how a command runs its options with them, in kubectl's Complete,
// Validate and Run order.
package factory
