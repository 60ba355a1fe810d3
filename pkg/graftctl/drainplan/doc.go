// Package drainplan owns the plan of a seed's drain as graftctl prints it
// (drain --plan, --dry-run and describe seed): for each shoot on the seed,
// in the order graft-descheduler takes them, where it goes, when (at once,
// in its maintenance window, at the drain's deadline or when its toleration
// runs out), how (an eviction, a classic or a live migration) and why.
package drainplan
