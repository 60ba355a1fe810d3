// Command graft-descheduler evicts shoots from seeds that must not host them
// any more (untolerated NoExecute taints, over-full seeds), safely and rate
// limited, so that graft-scheduler places them again; see package
// pkg/descheduler.
package main
