// Package usage counts the shoots on each seed for the capacity annotator. It
// is a lock around algorithm.ShootCounter, the counter the scheduler's
// snapshot uses, so both count by one rule (algorithm.SeedNamesCountedFor)
// and agree on usage: every event costs O(1) and replaying an event never
// counts a shoot twice.
package usage
