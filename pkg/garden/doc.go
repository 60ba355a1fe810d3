// Package garden owns the garden's API: graft's own core.graft.dev/v1alpha1,
// or Gardener's core.gardener.cloud/v1beta1 on a real Gardener garden. Every
// daemon and graftctl read and write seeds, shoots, cloud profiles, projects
// and region ConfigMaps through it and see graft's types either way, so that
// their caches, algorithm inputs, printing and explaining code are one.
//
// It holds:
//   - Open (open.go), the one place a daemon learns which API its
//     configuration names and gets that API's client and informers, and View
//     (informers.go), the landscape its decisions read (algorithm.Landscape);
//   - the conversion of Gardener's objects into graft's types with Gardener's
//     semantics (convert.go), which the informers, the plain reads and the
//     landscape files share;
//   - the informers, with a daemon's cache transform, and the informers of the
//     region ConfigMaps of one namespace (informers.go); on Gardener they and
//     the bindings read through a typed client whose decoder applies the
//     conversion as it decodes (typed.go);
//   - the taint effects and tolerationSeconds graft keeps in annotations on
//     Gardener (taints.go, docs/gardener.md);
//   - the plain reads and every write graft makes (client.go, binding.go): a
//     new shoot's binding, shoot and seed patches and status, and seed taints
//     in the API's shape;
//   - how each API moves a bound shoot off its seed (mover.go, the Mover):
//     graft's clears spec.seedName, Gardener's migrates the control plane
//     through shoots/binding; what decides whether Gardener admits a
//     migration, and the wording of its refusals, predicted or answered by
//     the API server (migration.go); and
//     the seeds' gardenlet configuration objects, ManagedSeeds and Gardenlets
//     (seedconfig.go), where a seed taint lasts; and the ManagedSeedSets
//     graft-capacity-annotator scales (managedseedset.go).
//
// It is the only package of graft's binaries that imports the dynamic client
// or names Gardener's group, and it builds on pkg/component, never the other
// way round (layer_test.go holds both).
package garden
