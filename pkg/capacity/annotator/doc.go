// Package annotator runs graft-capacity-annotator as a process (or as an
// in-process instance in tests): it builds the clients, metrics, Event
// recorder and informers from the configuration and runs the controller under
// the shared component runner (health and metrics endpoints, leader election).
package annotator
