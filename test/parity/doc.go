// Package parity checks graft's decisions against Gardener's own scheduler
// code. It generates random landscapes that use every feature Gardener's
// scheduler decides with, hands each to the oracle (test/parity/oracle, a
// module of its own that calls Gardener's DetermineSeed unchanged, built once
// per machine by hack/build-parity-oracle.sh) and to graft's algorithm,
// reading the same Gardener objects as graft-scheduler does, and compares
// every decision, failures included. The differences graft keeps on purpose
// are listed in deliberate.go and in docs/gardener.md.
package parity
