// Package seedcmd owns what the commands that act on seeds share: choosing the
// seeds from names, -l/--selector or --all; completing seed names in the shell;
// and printing one result per seed ("seed/NAME cordoned") or the seed itself
// under -o.
package seedcmd
