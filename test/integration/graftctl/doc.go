// Package graftctl holds graftctl's integration tests: the commands run
// in-process, exactly as the binary runs them (kubeconfig flags, error
// printing), against a real kube-apiserver with graft's CRDs, and drain runs
// with graft-descheduler and graft-scheduler in-process.
package graftctl
