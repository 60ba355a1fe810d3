// Package v1alpha1 holds the config.graft.dev/v1alpha1 API: the versioned
// component configuration files of graft's daemons (graft-scheduler,
// graft-capacity-annotator and graft-descheduler).
//
// Every kind embeds CommonConfiguration (client connection, leader election,
// health/metrics server, logging) and implements Configuration, so that one
// loader (pkg/component.LoadConfig) reads, defaults and validates any of them.
// Adding a kind takes one types_<kind>.go, one defaults/validation file for it,
// and one line in register.go.
//
// +k8s:deepcopy-gen=package
// +groupName=config.graft.dev
package v1alpha1
