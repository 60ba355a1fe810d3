// Package writes holds what graft's benchmarks share to compare graft with
// its baseline on equal terms: a Counter that counts, through a wrapped REST
// transport, every write a client makes (by verb and resource, with the
// writes in flight and the time of the last acknowledgement), a Baseline that
// makes exactly a given set of writes on its own shoots with a given number
// of writers, and an Observer that follows a namespace's shoots and Events as
// a user would, on both sides of a benchmark.
package writes
