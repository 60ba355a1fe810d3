package parity

// deliberate says why graft's decision g differs from Gardener's w on
// purpose, or "" when it should not differ. Every reason here is listed in
// docs/gardener.md. There is none today: the differences the suite found
// (IPv4 networks overlapping the seed's, the shoot's own providerTypes) were
// graft's to fix.
func deliberate(_ *Landscape, _, _ Decision) string {
	return ""
}
