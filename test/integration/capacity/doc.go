// Package capacity holds the integration tests of graft-capacity-annotator
// against a real kube-apiserver: capacity from defaults, overrides and
// annotations; usage through binds, unbinds and migrations; coalescing of a
// burst of binds; not-ready taints; and invalid annotations.
package capacity
