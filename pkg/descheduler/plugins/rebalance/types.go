package rebalance

import "github.com/graft-dev/graft/pkg/descheduler/framework"

// Name is the plugin's configuration name.
const Name = "Rebalance"

// Args are the plugin's arguments.
type Args struct {
	// HighUtilisation, in percent of a seed's allocatable shoots: a seed
	// counting more gives shoots away. Default 85.
	HighUtilisation *int32 `json:"highUtilisation,omitempty"`
	// LowUtilisation, in percent: only a seed counting fewer takes shoots,
	// one at a time while it stays under it, and never over the high mark.
	// Default 60.
	LowUtilisation *int32 `json:"lowUtilisation,omitempty"`
	// RelativeToMean makes the marks points above (high) and below (low)
	// the mean utilisation of the seeds that declare allocatable shoots.
	RelativeToMean bool `json:"relativeToMean,omitempty"`
	framework.ChurnArgs
}
