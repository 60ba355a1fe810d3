// Package algorithm owns graft's scheduling decision: which seed a shoot's
// control plane should run on, why every other seed was rejected, and the
// questions the descheduler, the capacity annotator and graftctl ask about the
// same rules. It is pure: no clients, no informers, no clock; callers pass in
// everything, including times. docs/algorithm.md gives the rules in order.
package algorithm
