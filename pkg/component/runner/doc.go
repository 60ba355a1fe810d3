// Package runner wires the shared runtime around a component's work: it serves
// the health and metrics endpoints, records the component's Events, runs the
// component's warm-up (informers) on every replica, and runs the component's
// main work only on the leader, stopping it when the lease is lost. The lease
// is held with the unfenced Lease client; the component's other clients
// (Events included) write only while the lease's fence is open.
//
// Every daemon has the same shape around it: New(cfg, clients, Options)
// builds the component and its Runner, and Run(ctx) runs it.
package runner
