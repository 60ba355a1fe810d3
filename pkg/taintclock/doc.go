// Package taintclock owns when a seed's NoExecute taint started to count
// against the shoots that tolerate it for a limited time. The clock is the
// taint's timeAdded, stored on the seed so that it survives restarts and
// failovers of graft-descheduler and lets its one-shot mode honour
// tolerationSeconds: writers set it when they add a NoExecute taint (Added),
// graft-descheduler stamps it on a NoExecute taint that lacks it (Stamp), and
// readers count a toleration from it, or from when the shoot arrived on the
// seed if that is later (Start). Only NoExecute taints carry it, as only they
// evict; the other effects keep no time.
package taintclock
