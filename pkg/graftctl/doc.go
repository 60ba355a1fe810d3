// Package graftctl owns the graftctl command tree: the root command, its global
// kubeconfig flags, and the wiring of every subcommand. Each subcommand lives in
// its own package below this one, as an Options struct with Complete, Validate
// and Run, in kubectl's habits.
package graftctl
