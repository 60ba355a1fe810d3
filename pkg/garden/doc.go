// Package garden owns which API graftctl reads and writes seeds and shoots
// through: graft's own core.graft.dev/v1alpha1, or Gardener's
// core.gardener.cloud/v1beta1 on a real Gardener garden. Either way the
// commands see graft's types, so that their printing and explaining code is
// one; Gardener's objects are read through the dynamic client and converted by
// landscapefile.Convert, the conversion the landscape files go through.
//
// It also owns what only Gardener has (migration.go): a control-plane
// migration of a bound shoot through shoots/binding (Migrator), the fields of
// Gardener's seeds and shoots that decide whether Gardener admits one, and
// the wording of its refusals, predicted or answered by the API server.
package garden
