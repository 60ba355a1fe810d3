// Package v1alpha1 holds the core.graft.dev/v1alpha1 API: Seeds, Shoots and
// CloudProfiles. Field names and JSON shapes follow Gardener's
// core.gardener.cloud/v1beta1 for every field graft reads, so that a Gardener
// manifest is accepted after changing only its apiVersion. Fields graft does
// not use are pruned by the API server.
//
// +k8s:deepcopy-gen=package
// +groupName=core.graft.dev
package v1alpha1
