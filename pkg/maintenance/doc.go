// Package maintenance owns when a shoot may be disrupted: its daily
// maintenance time window (spec.maintenance.timeWindow, Gardener's
// HHMMSS+ZZZZ format and rules), and when a move that can wait for it may
// happen (Timing), held while the shoot's last operation failed (Move). It is
// pure: the time is always given.
// docs/operations.md says how an operator uses it.
package maintenance
