// Package rebalance is the Rebalance descheduler plugin (off by default): a
// seed above the high utilisation mark gives shoots, in their maintenance
// windows, to seeds under the low mark, until it is under the high mark or
// no low seed takes more. Where a shoot goes is the scheduler's choice for it
// now; the plugin only accepts the move when that choice is under the low
// mark. The marks are shares of allocatable shoots, or points around the
// garden's mean utilisation. Its moves are improvements (framework.Churn).
package rebalance
