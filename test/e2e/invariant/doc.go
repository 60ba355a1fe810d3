// Package invariant checks what must hold in a garden after graft's
// components have settled, whatever happened before: no shoot on a seed that
// fails its filters (except shoots kept there on purpose, such as ones that
// tolerate a NoExecute taint for a while), no seed above its allocatable
// shoots, and no shoot bound twice in its history (a shoot moves only through
// an eviction that clears spec.seedName first).
//
// The filters are the shared scheduling algorithm's (pkg/algorithm), so the
// checker and the components cannot disagree on the rules.
package invariant
