// Package noexecutetaints is the NoExecuteTaints descheduler plugin: a shoot
// on a seed with a NoExecute taint it does not tolerate must leave at once; a
// shoot whose matching toleration has tolerationSeconds must leave when that
// time has passed since the descheduler first saw the taint (or the shoot on
// the tainted seed, whichever is later). The matching rules are the shared
// algorithm's (algorithm.CheckNoExecute). This is how `graftctl drain`
// empties a seed: it sets seed.gardener.cloud/unschedulable:NoExecute.
package noexecutetaints
