// Package graftctl owns the graftctl command tree: the root command, its global
// kubeconfig flags, and the wiring of every subcommand. Each subcommand lives in
// its own package below this one, as an Options struct with Complete, Validate
// and Run, in kubectl's habits. It also owns what reaches the terminal: the
// root command hands every subcommand streams that escape terminal control
// characters (TerminalSafe), since what graftctl prints carries strings
// tenants wrote.
package graftctl
