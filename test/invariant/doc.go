// Package invariant judges what graft's components do to a garden.
//
// Monitor follows shoots, seeds, cloud profiles and region ConfigMaps through
// watches for a whole suite and records every broken invariant with its time:
// a shoot moved from one seed to another without being unbound in between,
// or bound to a seed that does not exist, that its filters reject, or that
// was full, in every state of the inputs the scheduler could have known. A
// violation stays recorded even when a component repairs it later, and a
// judgement that cannot be made is logged with the reason. Feed lists and
// watches a garden's Sources for a Monitor, telling it of every watch gap and
// closing the gap with a new list; the e2e suite and the chaos run both use it.
//
// Check and CheckPending judge one listed state after a scenario settled: no
// shoot on a seed that fails its filters (except shoots kept there on
// purpose, such as ones on a cordoned seed), no seed above its allocatable
// shoots, and no unbound shoot that a seed would take now or that does not
// say why it waits.
//
// The filters are the shared scheduling algorithm's (pkg/algorithm), so the
// checker and the components cannot disagree on the rules.
package invariant
