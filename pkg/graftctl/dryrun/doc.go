// Package dryrun owns graftctl's --dry-run flag: its values none, client and
// server, what each means for a write, and the suffix printed after a result.
package dryrun
