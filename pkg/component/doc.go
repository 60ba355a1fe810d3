// Package component is what every graft daemon is made of: the command line,
// the versioned config file, clients behind the write fence, the health and
// metrics server, the Event recorder, the worker loop and the Runner that
// holds them together. docs/daemons.md lists the parts.
package component
