package algorithm

import "fmt"

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
	mark: func(info *seedInfo) bool { return info.unusable != "" },
	headline: func(_ *run, n int) string {
		return fmt.Sprintf("none of the %d seeds is valid for scheduling (not deleting, visible and ready)", n)
	},
}
