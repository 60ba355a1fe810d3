package rebalance

import (
	"k8s.io/utils/ptr"

	"github.com/graft-dev/graft/pkg/descheduler/framework"
)

// Default marks, in percent of allocatable shoots; relative to the mean,
// the defaults are points around it.
const (
	DefaultHigh         = 85
	DefaultLow          = 60
	DefaultHighRelative = 10
	DefaultLowRelative  = 10
)

// Default fills the unset arguments.
func Default(args *Args) {
	high, low := int32(DefaultHigh), int32(DefaultLow)
	if args.RelativeToMean {
		high, low = DefaultHighRelative, DefaultLowRelative
	}
	if args.HighUtilisation == nil {
		args.HighUtilisation = ptr.To(high)
	}
	if args.LowUtilisation == nil {
		args.LowUtilisation = ptr.To(low)
	}
	framework.DefaultChurn(&args.ChurnArgs)
}
