// Package usage counts the shoots on each seed. The counter is fed with shoot
// add, update and delete events and keeps, per shoot, the seeds it was counted
// on, so that every event costs O(1) and replaying an event never counts a
// shoot twice. Which seeds a shoot counts on is algorithm.SeedNamesCountedFor,
// the rule the scheduler uses, so both agree on usage.
package usage
