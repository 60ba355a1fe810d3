// Package runner wires the shared runtime around a component's work: it serves
// the health and metrics endpoints, runs the component's warm-up (informers)
// on every replica, and runs the component's main work only on the leader,
// stopping it when the lease is lost. The lease is held with the unfenced
// Lease client; the component's other clients write only while the lease's
// fence is open.
package runner
