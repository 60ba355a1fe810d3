package algorithm

import (
	"fmt"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"
)

// FilterUsable rejects seeds being deleted, invisible or not ready.
const FilterUsable Filter = "Usable"

// usablePlugin rejects seeds being deleted, invisible or not ready; the
// reason is read when the seed enters the snapshot (seedInfo.unusable).
var usablePlugin = &filterPlugin{
	reasons: []*reason{{
		filter:  FilterUsable,
		short:   "not usable",
		message: func(_ *run, v *verdict) string { return v.info.unusable },
		lifts:   func(old, cur *seedInfo) bool { return cur.unusable == "" && old.unusable != "" },
	}},
	mark: func(seed *v1alpha1.Seed) bool { return helper.SeedUnusableReason(seed) != "" },
	headline: func(_ *run, n int) string {
		return fmt.Sprintf("none of the %d seeds is valid for scheduling (not deleting, visible and ready)", n)
	},
}
