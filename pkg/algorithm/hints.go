package algorithm

import (
	"errors"
	"slices"
	"strings"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

// Queueing hints: which change of a seed can turn a filter's rejection into
// a pass. A scheduler retries a shoot no seed fits only on such a change
// (docs/algorithm.md, "Queueing hints"). A hint may say yes for a change that
// does not help in the end (the seed may fail a later filter); it never says
// no for one that could.

// SeedChange is one update of a seed, prepared once for every waiting shoot.
type SeedChange struct {
	old, cur *seedInfo
}

// NewSeedChange prepares the update of a seed from old to cur.
func NewSeedChange(old, cur *v1alpha1.Seed) SeedChange {
	return SeedChange{old: newSeedInfo(old), cur: newSeedInfo(cur)}
}

// Current is the seed as it is after the change.
func (c SeedChange) Current() *v1alpha1.Seed { return c.cur.seed }

// Lifts tells whether the change can make a seed that filter f rejected pass
// it. A filter the scheduler never fails on (the preferences, the
// descheduler's own) is always lifted: no hint is known for it.
func (c SeedChange) Lifts(f Filter) bool {
	if c.cur.seed.DeletionTimestamp != nil {
		return false
	}
	if rs := reasons[f]; rs != nil && rs.lifts != nil {
		return rs.lifts(c.old, c.cur)
	}
	return true
}

// ZonesChanged tells whether the seed's zones or zone selection mode changed,
// or the seed is being deleted: what a zone preference weighs seeds by.
func (c SeedChange) ZonesChanged() bool {
	return c.cur.seed.DeletionTimestamp != nil || c.Lifts(FilterZonePreference)
}

// Hint is the filter whose lifting can make the rejected seed a candidate:
// the rejecting filter, or for a seed rejected for capacity only, the filter
// that would reject it had it room.
func (r Rejection) Hint() Filter {
	if r.Filter == FilterCapacity && r.WithRoom != "" {
		return r.WithRoom
	}
	return r.Filter
}

// StableReason is what a user would act on in a failed decision: the filters
// that rejected seeds, in words, without counts, in the order the decision
// applies them ("no capacity, taints not tolerated"). It stays the same while
// seeds fill up, empty and change for the same reasons. Another error gives
// its message.
func StableReason(err error) string {
	var se *ScheduleError
	if !errors.As(err, &se) {
		if err == nil {
			return ""
		}
		return err.Error()
	}
	var filters []Filter
	for _, r := range se.Rejections {
		if !slices.Contains(filters, r.Filter) {
			filters = append(filters, r.Filter)
		}
	}
	if len(filters) == 0 {
		return "no seeds"
	}
	slices.SortFunc(filters, func(a, b Filter) int { return filterOrder(a) - filterOrder(b) })
	words := make([]string, len(filters))
	for i, f := range filters {
		words[i] = shortOf(f)
	}
	return strings.Join(words, ", ")
}

// FilterCode numbers the filters from 1 in the order a decision applies them
// (0 for an unknown filter), so that a waiting shoot's rejections fit in a
// byte per seed; FilterOfCode turns it back.
func FilterCode(f Filter) uint8 { return uint8(filterOrder(f) + 1) }

// FilterOfCode returns the filter of a FilterCode; "" for 0.
func FilterOfCode(code uint8) Filter {
	if code == 0 || int(code) > len(filterOrderList) {
		return ""
	}
	return filterOrderList[code-1]
}
