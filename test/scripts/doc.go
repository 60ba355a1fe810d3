// Package scripts tests the hack/ scripts that CI depends on and that need no
// cluster: they run as they do in make test, with bash and the host's tools,
// against temporary directories.
package scripts
