// Package seedcmd owns what graftctl's commands that act on seeds share:
// choosing the seeds from names, -l/--selector or --all; completing seed names
// in the shell; the --dry-run flag (none, client and server, what each means
// for a write, and the suffix printed after a result); editing a seed's
// spec.taints from the command line (parsing kubectl-style taint arguments
// KEY[=VALUE]:EFFECT, KEY:EFFECT- and KEY-, computing the new list with
// kubectl's rules and messages, and writing it back with optimistic
// concurrency); and printing one result per seed ("seed/NAME cordoned") or the
// seed itself under -o; Writer puts these together for taint, cordon and
// uncordon. It also holds the one list of the spellings of the
// seed and shoot resource types that get, describe and taint accept.
package seedcmd
