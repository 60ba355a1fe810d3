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
// Seeds and Shoots are built with pkg/coretest's builders, as every test of
// graft builds them (MakeSeed and MakeShoot are the landscapes' presets), and
// Seed and Shoot make them Gardener objects, adding what gardener-apiserver
// requires and graft does not read. The other objects are YAML manifests, as
// Gardener's own documentation shows them. Both are unstructured objects:
// graft's go.mod does not take on Gardener's module. Admitted repeats a write that
// gardener-apiserver's admission refused only because its caches had not yet
// seen an object created a moment before. GardenletStandIn reports control
// planes running on the seeds shoots are bound to, after a delay, where no
// gardenlet runs to do it (tests, the demo, the chaos run).
package gardenerlandscape
