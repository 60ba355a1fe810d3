// Package seedtaints owns the editing of a seed's spec.taints from the command
// line: parsing kubectl-style taint arguments (KEY[=VALUE]:EFFECT, KEY:EFFECT-,
// KEY-), computing the new taint list with kubectl's rules and messages, and
// writing it back to the API server with optimistic concurrency.
package seedtaints
