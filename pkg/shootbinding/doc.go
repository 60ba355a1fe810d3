// Package shootbinding owns writing a Gardener Shoot's spec.seedName: an
// update of the whole Shoot through the shoots/binding subresource, the only
// way Gardener lets spec.seedName be set or changed. graft-scheduler binds a
// new shoot with it and `graftctl drain --migrate` moves a bound shoot's
// control plane with it, so that both write under the same precondition: the
// Shoot must still be the version the decision was made on.
package shootbinding
