package algorithm

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"
)

// scheduleError builds the error of a decision that found no seed.
func (r *run) scheduleError() *ScheduleError {
	e := &ScheduleError{
		Shoot:      ShootKey(r.shoot),
		Filter:     r.failFilter,
		Headline:   r.headline(),
		Rejections: make([]Rejection, 0, len(r.verdicts)),
	}
	for i := range r.verdicts {
		v := &r.verdicts[i]
		e.Rejections = append(e.Rejections, Rejection{Seed: v.info.name, Filter: v.filter, Message: r.message(v)})
	}
	slices.SortFunc(e.Rejections, func(a, b Rejection) int { return strings.Compare(a.Seed, b.Seed) })
	if !r.ignoreCapacity && slices.ContainsFunc(r.verdicts, func(v verdict) bool { return v.filter == FilterCapacity }) {
		// A capacity shortage is one the shoot would get past if the full
		// seeds had room; decide again without the capacity check to know.
		if again, err := decide(r.shoot, r.snap, r.in, r.exclude, true); err == nil {
			e.NoCapacity = again.chosen >= 0
			withRoom := map[string]Filter{}
			for i := range r.verdicts {
				if f := again.verdicts[i].filter; r.verdicts[i].filter == FilterCapacity && (f == FilterStrategy || f == FilterLimitedToleration) {
					withRoom[r.verdicts[i].info.name] = f
				}
			}
			again.release()
			for i := range e.Rejections {
				e.Rejections[i].WithRoom = withRoom[e.Rejections[i].Seed]
			}
		}
	}
	return e
}

// headline is the reference scheduler's message for the step that removed the
// last candidates.
func (r *run) headline() string {
	if r.failStep == nil {
		return "no seed is eligible for scheduling"
	}
	return r.failStep.headline(r, r.failEntering)
}

// message is the long reason for one seed's verdict.
func (r *run) message(v *verdict) string {
	if rs := reasons[v.filter]; rs != nil {
		return rs.message(r, v)
	}
	return ""
}

// Messages quote what a tenant wrote on its shoot, and a decision repeats it
// for every seed: they quote at most maxQuoted bytes of one string and list at
// most maxListed items, so that a message's size does not grow with the input.
const (
	maxQuoted = 64
	maxListed = 3
)

// Clip returns s, or its first maxQuoted bytes (cut at a rune's start)
// followed by its length, with what is not printable escaped as Go escapes
// it: a tenant's string must not add a line to a message, an Event or
// graftctl's output.
func Clip(s string) string {
	if len(s) > maxQuoted {
		s = fmt.Sprintf("%s...(%d bytes)", cutAtRune(s, maxQuoted), len(s))
	}
	if strings.IndexFunc(s, func(r rune) bool { return r != ' ' && !unicode.IsPrint(r) }) < 0 {
		return s
	}
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}

// clipList writes a list as %v does, with at most maxListed items, each
// clipped.
func clipList(items []string) string {
	parts := make([]string, 0, min(len(items), maxListed)+1)
	for i, it := range items {
		if i == maxListed {
			parts = append(parts, fmt.Sprintf("and %d more", len(items)-maxListed))
			break
		}
		parts = append(parts, Clip(it))
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// messageText is what the messages of one decision quote from the shoot
// (clipped) and its cloud profile, written once for all seeds.
type messageText struct {
	region, providerType      string
	shootSelector, cpSelector string
}

func (r *run) text() *messageText {
	if r.quoted == nil {
		t := &messageText{
			region:       Clip(r.shoot.Spec.Region),
			providerType: Clip(r.shoot.Spec.Provider.Type),
		}
		if r.shootSelector != nil {
			t.shootSelector = Clip(r.shootSelector.String())
		}
		if r.cpSelector != nil {
			// The operator's, so whole; written once for all seeds.
			t.cpSelector = r.cpSelector.String()
		}
		r.quoted = t
	}
	return r.quoted
}

// formatLimited writes NoExecute taints with the longest tolerationSeconds
// the tolerations give each, e.g. "key:NoExecute for 300s".
func formatLimited(taints []v1alpha1.SeedTaint, tolerations []v1alpha1.Toleration) string {
	parts := make([]string, len(taints))
	for i, t := range taints {
		var longest int64
		for _, tol := range tolerations {
			if ToleratesTaint(tol, t) && tol.TolerationSeconds != nil {
				longest = max(longest, *tol.TolerationSeconds)
			}
		}
		parts[i] = fmt.Sprintf("%s for %ds", helper.FormatTaint(t), longest)
	}
	return strings.Join(parts, ", ")
}

func formatTaints(taints []v1alpha1.SeedTaint) string {
	return helper.FormatTaints(taints, ", ")
}
