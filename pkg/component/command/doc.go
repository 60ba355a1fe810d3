// Package command builds the command line shared by graft's daemons: one
// required --config flag naming a config.graft.dev/v1alpha1 file, the standard
// klog flags, component-base's --version, and a main that stops on SIGINT or
// SIGTERM and flushes the log.
package command
