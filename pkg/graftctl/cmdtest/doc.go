// Package cmdtest runs graftctl's commands in unit tests: one way to execute
// a command over a factory and read what it printed, and the seed taints a
// command left in a fake clientset.
package cmdtest
