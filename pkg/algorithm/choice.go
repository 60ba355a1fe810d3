package algorithm

import (
	"fmt"
	"math"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"
)

const (
	// FilterPreferNoSchedule sets aside seeds with untolerated PreferNoSchedule
	// taints because candidates without them are left.
	FilterPreferNoSchedule Filter = "PreferNoSchedule"
	// FilterMinimalDistance sets aside seeds farther away than the closest
	// candidates, or whose region the region ConfigMap does not list.
	FilterMinimalDistance Filter = "MinimalDistance"
	// FilterLeastUsed sets aside seeds that count more shoots than the chosen
	// one, or as many with a name sorting later.
	FilterLeastUsed Filter = "LeastUsed"
	// FilterScore sets aside seeds that scored lower than the chosen one.
	FilterScore Filter = "Score"
)

// The choice among the seeds the pipeline left: the preferences, which set
// seeds aside only while others are left (a limited stay for an evicted
// shoot, untolerated PreferNoSchedule taints), then the strategy's distance
// and the least used seed, or GEP-13's scores.

var preferNoScheduleReason = &reason{
	filter: FilterPreferNoSchedule,
	short:  "PreferNoSchedule taints",
	message: func(r *run, v *verdict) string {
		return "shoot does not tolerate the seed's PreferNoSchedule taints (" + formatTaints(r.untoleratedPreferNoSchedule(v.info)) +
			") and seeds without such taints are left"
	},
}

var minimalDistanceReason = &reason{
	filter: FilterMinimalDistance,
	short:  "farther away",
	message: func(r *run, v *verdict) string {
		info := v.info
		if !v.hasDistance && v.distance > math.MaxInt32 {
			return fmt.Sprintf("region %q is listed for shoot region %q at %d in region ConfigMap %s, above the largest distance considered (%d)",
				info.region, r.text().region, v.distance, r.regionSource, math.MaxInt32)
		}
		if v.hasDistance && !r.distancesListed && v.distance > MaxFallbackDistance {
			return fmt.Sprintf("Levenshtein distance %d between regions %q and %q is above %d, the largest considered",
				v.distance, r.text().region, info.region, MaxFallbackDistance)
		}
		if !v.hasDistance {
			return fmt.Sprintf("region %q is not listed for shoot region %q in region ConfigMap %s, which lists other candidates",
				info.region, r.text().region, r.regionSource)
		}
		return fmt.Sprintf("distance %d is larger than the minimal distance %d", v.distance, r.minDistance)
	},
}

var leastUsedReason = &reason{
	filter: FilterLeastUsed,
	short:  "more used",
	message: func(r *run, v *verdict) string {
		c := &r.verdicts[r.chosen]
		if v.usage == c.usage {
			return fmt.Sprintf("as many shoots (%d) as seed %s, whose name sorts first", v.usage, c.info.name)
		}
		return fmt.Sprintf("more shoots (%d) than seed %s (%d)", v.usage, c.info.name, c.usage)
	},
}

var scoreReason = &reason{
	filter: FilterScore,
	short:  "lower score",
	message: func(r *run, v *verdict) string {
		c := &r.verdicts[r.chosen]
		if v.score == c.score {
			return fmt.Sprintf("same score %d as seed %s, which has fewer shoots or sorts first", v.score, c.info.name)
		}
		return fmt.Sprintf("score %d is lower than the %d of seed %s", v.score, c.score, c.info.name)
	},
}

// setAside rejects with filter the candidates that avoid holds for, when at
// least one candidate it does not hold for is left: the rules that call it
// are preferences, which never leave a shoot without a seed on their own.
// avoid is a method expression, so that passing it allocates nothing.
func (r *run) setAside(avoid func(*run, *seedInfo) bool, filter Filter) int {
	kept, avoided := 0, 0
	for i := range r.verdicts {
		v := &r.verdicts[i]
		if v.filter != "" {
			continue
		}
		if avoid(r, v.info) {
			avoided++
		} else {
			kept++
		}
	}
	if kept == 0 || avoided == 0 {
		return 0
	}
	for i := range r.verdicts {
		v := &r.verdicts[i]
		if v.filter == "" && avoid(r, v.info) {
			v.filter = filter
		}
	}
	return avoided
}

func (r *run) untoleratedPreferNoSchedule(info *seedInfo) []v1alpha1.SeedTaint {
	if !info.hasPreferNoSchedule {
		return nil
	}
	return UntoleratedTaints(info.taints, r.tolerations, v1alpha1.TaintEffectPreferNoSchedule)
}

// repelsSoftly reports whether the seed has a PreferNoSchedule taint the shoot
// does not tolerate, without allocating.
func (r *run) repelsSoftly(info *seedInfo) bool {
	if !info.hasPreferNoSchedule {
		return false
	}
	for _, t := range info.taints {
		if helper.TaintEffectOf(t) == v1alpha1.TaintEffectPreferNoSchedule && !TaintTolerated(t, r.tolerations) {
			return true
		}
	}
	return false
}

// setAsidePreferNoSchedule drops candidates with untolerated PreferNoSchedule
// taints when any candidate without them is left.
func (r *run) setAsidePreferNoSchedule() {
	r.setAside((*run).repelsSoftly, FilterPreferNoSchedule)
}

// computeDistances sets the distance of every candidate: from the region
// ConfigMap when it lists at least one candidate's region (a region is at 0
// from itself unless listed; unlisted candidates, and those listed at more
// than 2^31-1, are set aside), otherwise with the Levenshtein fallback.
func (r *run) computeDistances() error {
	configured, source, err := regionDistances(r.in, r.shoot.Spec.Region)
	if err != nil {
		return err
	}
	r.regionSource = source
	if configured != nil {
		for i := range r.verdicts {
			v := &r.verdicts[i]
			if v.filter != "" {
				continue
			}
			d, ok := configured[v.info.region]
			if !ok && v.info.region == r.shoot.Spec.Region {
				d, ok = 0, true
			}
			switch {
			case ok && d > math.MaxInt32:
				// The reference scheduler starts its search for the
				// minimum at 2^31-1: a seed farther away is never a
				// candidate, as if it were not listed.
				v.distance = d
			case ok:
				v.distance, v.hasDistance = d, true
			}
			if v.hasDistance {
				r.distancesListed = true
			}
		}
	}
	if r.distancesListed {
		for i := range r.verdicts {
			v := &r.verdicts[i]
			if v.filter == "" && !v.hasDistance {
				v.filter = FilterMinimalDistance
			}
		}
		return nil
	}
	shootBase, shootOrientation := SplitRegion(r.shoot.Spec.Region)
	shootType := r.shoot.Spec.Provider.Type
	// Seeds share few regions; remember each region's distance for this decision.
	type regionKey struct{ region, provider string }
	cache := map[regionKey]int{}
	entering, alive := 0, 0
	capped := !r.in.Config.scoring()
	for i := range r.verdicts {
		v := &r.verdicts[i]
		if v.filter != "" {
			continue
		}
		k := regionKey{v.info.region, v.info.providerType}
		d, ok := cache[k]
		if !ok {
			d = levenshteinFromParts(shootBase, shootOrientation, shootType, v.info.regionBase, v.info.orientation, v.info.providerType)
			cache[k] = d
		}
		v.distance, v.hasDistance = d, true
		entering++
		// The reference scheduler looks for the minimum from
		// MaxFallbackDistance down: a seed farther away is never a candidate.
		if capped && d > MaxFallbackDistance {
			v.filter = FilterMinimalDistance
			continue
		}
		alive++
	}
	if entering > 0 && alive == 0 {
		r.failStep, r.failFilter, r.failEntering = strategyPlugin, FilterMinimalDistance, entering
	}
	return nil
}

// chooseLeastUsed is the reference choice: the closest candidates (when
// distances were computed), then the least used, then the name sorting first.
func (r *run) chooseLeastUsed() {
	r.minDistance = math.MaxInt
	for i := range r.verdicts {
		v := &r.verdicts[i]
		if v.filter == "" && v.hasDistance && v.distance < r.minDistance {
			r.minDistance = v.distance
		}
	}
	for i := range r.verdicts {
		v := &r.verdicts[i]
		if v.filter == "" && v.hasDistance && v.distance > r.minDistance {
			v.filter = FilterMinimalDistance
		}
	}
	for i := range r.verdicts {
		v := &r.verdicts[i]
		if v.filter != "" {
			continue
		}
		if r.chosen < 0 || r.better(v, &r.verdicts[r.chosen]) {
			r.chosen = i
		}
	}
	for i := range r.verdicts {
		if v := &r.verdicts[i]; v.filter == "" && i != r.chosen {
			v.filter = FilterLeastUsed
		}
	}
}

// better orders candidates by usage, then name.
func (r *run) better(a, b *verdict) bool {
	if a.usage != b.usage {
		return a.usage < b.usage
	}
	return a.info.name < b.info.name
}

// chooseByScore is the GEP-13 scoring step: the weighted sum of the plugins'
// scores, highest first, ties by usage then name.
func (r *run) chooseByScore() {
	w := r.in.Config.ScoreWeights
	minD, maxD, maxUsage := math.MaxInt, math.MinInt, 0
	for i := range r.verdicts {
		v := &r.verdicts[i]
		if v.filter != "" {
			continue
		}
		if v.hasDistance {
			minD, maxD = min(minD, v.distance), max(maxD, v.distance)
		}
		maxUsage = max(maxUsage, v.usage)
	}
	for i := range r.verdicts {
		v := &r.verdicts[i]
		if v.filter != "" {
			continue
		}
		var total int64
		if wd := int64(w[ScorePluginMinimalDistance]); wd > 0 && v.hasDistance {
			s := int64(100)
			if maxD > minD {
				// In floating point: configured distances may be negative
				// and far apart, and integers would overflow.
				s = int64(100 * (float64(maxD) - float64(v.distance)) / (float64(maxD) - float64(minD)))
			}
			total += wd * s
		}
		if wl := int64(w[ScorePluginLeastAllocated]); wl > 0 {
			var s int64
			if v.info.hasAllocatable && v.info.allocatable > 0 {
				s = 100 * (v.info.allocatable - int64(v.usage)) / v.info.allocatable
			} else if !v.info.hasAllocatable {
				s = 100 * int64(maxUsage+1-v.usage) / int64(maxUsage+1)
			}
			total += wl * max(0, min(100, s))
		}
		if wp := int64(w[ScorePluginPreferNoSchedule]); wp > 0 && !r.repelsSoftly(v.info) {
			total += wp * 100
		}
		v.score, v.hasScore = total, true
		if r.chosen < 0 {
			r.chosen = i
			continue
		}
		c := &r.verdicts[r.chosen]
		if v.score > c.score || (v.score == c.score && r.better(v, c)) {
			r.chosen = i
		}
	}
	for i := range r.verdicts {
		if v := &r.verdicts[i]; v.filter == "" && i != r.chosen {
			v.filter = FilterScore
		}
	}
}
