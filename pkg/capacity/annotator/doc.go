// Package annotator is graft-capacity-annotator as a component: New builds
// the clients' informers, metrics, Event recorder and capacity controller
// from the configuration, and Run runs the controller under the shared
// component runner (health and metrics endpoints, leader election).
package annotator
