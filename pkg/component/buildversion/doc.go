// Package buildversion owns the version every graft binary reports: the
// daemons' --version and graftctl version. It reads k8s.io/component-base's
// version, which the Makefile and the Dockerfile stamp with -ldflags, and
// imports nothing that registers flags, so that graftctl does not grow the
// daemons' --version flag.
package buildversion
