package parity

// deliberate says why graft's decision g differs from Gardener's w on
// purpose, or "" when it should not differ. Every reason here is listed in
// docs/gardener.md.
func deliberate(l *Landscape, g, w Decision) string {
	return ""
}
