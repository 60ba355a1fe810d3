// Command drain is the drain benchmark (`make bench-drain`): shoots/second
// moved off a drained seed against the API server's ceiling for the same
// writes. docs/benchmarks.md gives the method.
package main
