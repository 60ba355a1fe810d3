// Package noexecutetaints is the NoExecuteTaints descheduler plugin: a shoot
// on a seed with a NoExecute taint it does not tolerate must leave at once; a
// shoot whose matching toleration has tolerationSeconds must leave when that
// time has passed since the taint's timeAdded (or since the shoot arrived on
// the tainted seed, whichever is later; see taintclock.Start), and the seed is
// looked at again at that moment. The matching rules are the shared
// algorithm's (algorithm.CheckNoExecute). This is how `graftctl drain`
// empties a seed: it sets seed.gardener.cloud/unschedulable:NoExecute.
package noexecutetaints
