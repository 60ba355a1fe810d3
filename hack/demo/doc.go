// Command demo is the Go side of hack/demo.sh (make demo and make
// demo-gardener): it applies the sample landscape of make demo to the local
// garden without kubectl, and for make demo-gardener creates a Gardener
// landscape through gardener-apiserver (from pkg/controlplane/gardenerlandscape, the
// objects the Gardener integration tests use), waits for the facts the demo
// shows (a shoot bound, a shoot waiting with lastOperation Create/Pending, an
// Event), and prints gardener-apiserver's own tables of shoots and seeds.
package main
