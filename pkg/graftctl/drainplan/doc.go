// Package drainplan owns the plan of a seed's drain as graftctl prints it
// (drain --plan and describe seed): for each shoot on the seed, where it
// goes, when, how (an eviction, a classic or a live migration) and why, as
// graft-descheduler's own planner (descheduler.ComputePlan) computes it with
// the configuration its leader publishes on its Lease and its live migration
// record; and how graftctl reads those (Descheduler, LiveFlag).
package drainplan
