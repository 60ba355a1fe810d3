package algorithm

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

// Strategy is how candidates are narrowed by region.
type Strategy string

const (
	// StrategySameRegion keeps seeds of the shoot's provider type in the shoot's region. The default.
	StrategySameRegion Strategy = "SameRegion"
	// StrategyMinimalDistance keeps the seeds closest to the shoot's region.
	StrategyMinimalDistance Strategy = "MinimalDistance"
)

// ScorePlugin names a scoring rule of the optional scoring step (GEP-13).
type ScorePlugin string

const (
	// ScorePluginMinimalDistance scores 100 for the closest candidates and 0 for
	// the farthest, linearly in between.
	ScorePluginMinimalDistance ScorePlugin = "MinimalDistance"
	// ScorePluginLeastAllocated scores 100 * (1 - usage/allocatable); a seed
	// without allocatable shoots is measured against the largest usage among
	// the candidates plus one.
	ScorePluginLeastAllocated ScorePlugin = "LeastAllocated"
	// ScorePluginPreferNoSchedule scores 0 for a seed with untolerated
	// PreferNoSchedule taints and 100 otherwise. Without this plugin such seeds
	// are only used when no other candidate is left.
	ScorePluginPreferNoSchedule ScorePlugin = "PreferNoSchedule"
)

// ScorePlugins returns every score plugin, in a fixed order.
func ScorePlugins() []ScorePlugin {
	return []ScorePlugin{ScorePluginMinimalDistance, ScorePluginLeastAllocated, ScorePluginPreferNoSchedule}
}

// Config is how decisions are made.
type Config struct {
	// Strategy is SameRegion (also when empty) or MinimalDistance.
	Strategy Strategy
	// ScoreWeights turns on the scoring step when it has a positive weight:
	// each candidate's score is the weighted sum of the plugins' 0..100 scores
	// and the highest wins. The strategy then only keeps its region rule
	// (SameRegion: the shoot's region; purpose testing: the provider type);
	// distance counts through the MinimalDistance plugin alone. Empty
	// reproduces the reference scheduler.
	ScoreWeights map[ScorePlugin]int32
}

// Validate reports every problem with the configuration at once.
func (c Config) Validate() error {
	var errs []error
	switch c.Strategy {
	case "", StrategySameRegion, StrategyMinimalDistance:
	default:
		errs = append(errs, fmt.Errorf("unknown strategy %q: use %s or %s", c.Strategy, StrategySameRegion, StrategyMinimalDistance))
	}
	for _, p := range sortedPlugins(c.ScoreWeights) {
		if !slices.Contains(ScorePlugins(), p) {
			errs = append(errs, fmt.Errorf("unknown score plugin %q: use one of %v", p, ScorePlugins()))
		}
		if w := c.ScoreWeights[p]; w < 0 {
			errs = append(errs, fmt.Errorf("score plugin %s has negative weight %d", p, w))
		}
	}
	return errors.Join(errs...)
}

func sortedPlugins(m map[ScorePlugin]int32) []ScorePlugin {
	out := make([]ScorePlugin, 0, len(m))
	for p := range m {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

func (c Config) strategy() Strategy {
	if c.Strategy == "" {
		return StrategySameRegion
	}
	return c.Strategy
}

func (c Config) scoring() bool {
	for _, w := range c.ScoreWeights {
		if w > 0 {
			return true
		}
	}
	return false
}

// Inputs are what a decision needs besides the shoot and the snapshot.
type Inputs struct {
	// CloudProfile is the shoot's cloud profile (see CloudProfileNameOf). Required.
	CloudProfile *v1alpha1.CloudProfile
	// RegionConfig is the parsed region ConfigMap of the cloud profile, if any.
	// It takes precedence over RegionConfigMap.
	RegionConfig *RegionConfig
	// RegionConfigMap is the raw region ConfigMap of the cloud profile (see
	// SelectRegionConfigMap); may be nil. Only the shoot region's entry is
	// parsed, on every decision; pass RegionConfig to parse once.
	RegionConfigMap *corev1.ConfigMap
	// Config is the strategy and scoring.
	Config Config
	// Project is the name of the Project the shoot's namespace belongs to
	// (the namespace's project.gardener.cloud/name label), which the default
	// domain rule needs. Empty: the name Gardener gives a project's
	// namespace is assumed (see ProjectOf).
	Project string
	// Migration applies Gardener's admission rules for moving a bound
	// shoot's control plane (CheckMigration): on Gardener's API a bound shoot
	// moves only to a seed Gardener would accept.
	Migration bool
	// Evacuating tells whether control planes are being moved off a seed;
	// nil: none is. A shoot being moved is not sent to such a seed, whose
	// gardenlet is busy (or failing), even where it would be tolerated.
	Evacuating func(seed string) bool
}

// Filter names a step of the decision; it is what rejected a seed. Each is
// declared with its filter plugin (filter.go).
type Filter string

// Rejection is why one seed was not chosen.
type Rejection struct {
	Seed    string
	Filter  Filter
	Message string
	// WithRoom is, for a seed rejected for capacity, the filter that would
	// reject it had it room (Strategy); empty when none would.
	WithRoom Filter
}

// ScheduleError is a decision that found no seed. Error() reads like the
// reference scheduler's message for the step that removed the last candidate,
// followed by every rejected seed, sorted by name, with its reason.
type ScheduleError struct {
	// Shoot is the shoot's namespace/name.
	Shoot string
	// Filter is the most frequent reason in the step that removed the last
	// candidates (for the candidate step: Networks, Taints or Capacity).
	Filter Filter
	// Headline is the reference scheduler's message for that step.
	Headline string
	// Rejections has one entry per seed, sorted by seed name.
	Rejections []Rejection
	// NoCapacity is set when the shoot would have been placed had the seeds
	// rejected for capacity had room.
	NoCapacity bool
}

// Error returns the long form: headline and every seed's reason.
func (e *ScheduleError) Error() string { return e.Truncated(math.MaxInt) }

// Truncated returns the long form cut to at most limit bytes (ending in
// "..." when cut), built only as far as it is kept: the full form of a
// landscape's every seed can be far larger than the field it goes to.
func (e *ScheduleError) Truncated(limit int) string {
	if len(e.Rejections) == 0 {
		return truncate(e.Headline, limit)
	}
	var b strings.Builder
	// write adds s, or reports that it does not fit; then out is what fits.
	var out string
	write := func(s string) bool {
		if b.Len()+len(s) > limit {
			out = truncate(b.String()+s[:min(len(s), limit+1)], limit)
			return false
		}
		b.WriteString(s)
		return true
	}
	if !write(e.Headline) || !write(": {") {
		return out
	}
	for i, r := range e.Rejections {
		if (i > 0 && !write(", ")) || !write(r.Seed) || !write(" => ") || !write(r.Message) {
			return out
		}
	}
	if !write("}") {
		return out
	}
	return b.String()
}

// truncate cuts s to at most limit bytes, ending in "...", at a rune's start.
func truncate(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	if limit < 3 {
		return s[:max(limit, 0)]
	}
	return cutAtRune(s, limit-3) + "..."
}

// cutAtRune returns at most the first n bytes of s, ending before a rune
// that would be cut in two.
func cutAtRune(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// TruncatedError returns err's message cut to at most limit bytes; a
// ScheduleError's is built only that far.
func TruncatedError(err error, limit int) string {
	var se *ScheduleError
	if errors.As(err, &se) && se == err {
		return se.Truncated(limit)
	}
	return truncate(err.Error(), limit)
}

// Short returns a one-line summary for Events and lastOperation, counting the
// seeds per rejecting filter, e.g. "0/5 seeds fit: no capacity (3), taints not
// tolerated (2)".
func (e *ScheduleError) Short() string {
	counts := map[Filter]int{}
	for _, r := range e.Rejections {
		counts[r.Filter]++
	}
	filters := make([]Filter, 0, len(counts))
	for f := range counts {
		filters = append(filters, f)
	}
	slices.SortFunc(filters, func(a, b Filter) int {
		if counts[a] != counts[b] {
			return counts[b] - counts[a]
		}
		return filterOrder(a) - filterOrder(b)
	})
	parts := make([]string, 0, len(filters))
	for _, f := range filters {
		parts = append(parts, fmt.Sprintf("%s (%d)", shortOf(f), counts[f]))
	}
	s := fmt.Sprintf("0/%d seeds fit", len(e.Rejections))
	if len(parts) > 0 {
		s += ": " + strings.Join(parts, ", ")
	}
	return s
}

// IsNoCapacity reports whether err is a ScheduleError caused by a lack of
// capacity: the shoot would have been placed had the full seeds had room.
func IsNoCapacity(err error) bool {
	var se *ScheduleError
	return errors.As(err, &se) && se.NoCapacity
}

// ShortReason returns the short form of a decision error: ScheduleError's
// Short, or the error text for other errors (bad selector, malformed region
// ConfigMap, missing cloud profile).
func ShortReason(err error) string {
	if err == nil {
		return ""
	}
	var se *ScheduleError
	if errors.As(err, &se) {
		return se.Short()
	}
	return err.Error()
}

// MigrationReasons returns, after "; ", why Gardener would refuse the
// migrations a decision error left out (FilterMigration), which an operator
// can fix on those seeds; "" when it left none out for that.
func MigrationReasons(err error) string {
	var se *ScheduleError
	if !errors.As(err, &se) {
		return ""
	}
	var b strings.Builder
	for _, r := range se.Rejections {
		if r.Filter == FilterMigration {
			b.WriteString("; " + r.Message)
		}
	}
	return b.String()
}

// SeedResult is one seed's part in a decision.
type SeedResult struct {
	// Seed is the seed's name.
	Seed string `json:"seed"`
	// Chosen is set for the seed the shoot goes to.
	Chosen bool `json:"chosen,omitempty"`
	// Filter is the first step that rejected the seed; empty for the chosen seed.
	Filter Filter `json:"filter,omitempty"`
	// Message says why, in the words of the long form.
	Message string `json:"message,omitempty"`
	// Distance is the strategy distance, when one was computed.
	Distance *int `json:"distance,omitempty"`
	// Score is the weighted score, when scoring is on and the seed got that far.
	Score *int64 `json:"score,omitempty"`
	// Usage is the number of shoots counted on the seed (without the shoot itself).
	Usage int `json:"usage"`
	// Allocatable is the seed's allocatable shoots, when set.
	Allocatable *int64 `json:"allocatable,omitempty"`
}

// Explanation is a decision seed by seed.
type Explanation struct {
	// Shoot is the shoot's namespace/name.
	Shoot string
	// Strategy is the strategy applied.
	Strategy Strategy
	// Seed is the chosen seed; empty when Err is set.
	Seed string
	// Err is the decision's error (a *ScheduleError, or another error when the
	// inputs are unusable, in which case Seeds may be empty).
	Err error
	// Seeds has one entry per seed, sorted by name.
	Seeds []SeedResult
	// Notes are what an operator should know about the decision beyond the
	// seeds' verdicts, such as a tenant's shoot tolerating the protected taint.
	Notes []string
}

// Short returns the one-line form: the chosen seed or ShortReason of the error.
func (e *Explanation) Short() string {
	if e.Err != nil {
		return ShortReason(e.Err)
	}
	return "scheduled to seed " + e.Seed
}
