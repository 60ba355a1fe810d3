// Package gardenerlandscape holds the Gardener objects that graft's Gardener
// integration tests (test/integration/gardener) and `make demo-gardener`
// (hack/demo) create in a garden served by the real gardener-apiserver: a
// CloudProfile, a Project, cloud and DNS credentials with a
// CredentialsBinding, Seeds (with backup and chosen internal and default DNS
// domains where a control-plane migration needs them), Shoots, and the status
// a ready gardenlet would report for a seed. Every manifest passes Gardener's validation and
// admission with only the ExtensionValidator plugin disabled (the providers
// are names without extensions; see pkg/controlplane).
//
// Manifests are YAML strings, so that callers read them as Gardener's own
// documentation shows them and decode them into unstructured objects: graft's
// go.mod does not take on Gardener's module. Admitted repeats a write that
// gardener-apiserver's admission refused only because its caches had not yet
// seen an object created a moment before. GardenletStandIn reports control
// planes running on the seeds shoots are bound to, after a delay, where no
// gardenlet runs to do it (tests, the demo, the chaos run).
package gardenerlandscape
