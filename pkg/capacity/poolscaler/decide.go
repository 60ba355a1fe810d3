package poolscaler

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/pkg/capacity/forecast"
)

// TaintScaleIn is the taint the annotator cordons a seed with before its
// ManagedSeedSet is scaled in; the annotator removes only its own.
const TaintScaleIn = "graft.dev/scale-in"

// Annotations the annotator keeps on a ManagedSeedSet it scales: when and
// how it last stepped, so that the cool-down survives a restart or a new
// leader. ManagedSeedSets are the operators' objects, not a tenant's.
const (
	AnnotationScaledAt = "graft.dev/scaled-at"
	AnnotationScaled   = "graft.dev/scaled"
)

// stepKind is what a pool's scaler does in one forecast.
type stepKind string

const (
	stepNone     stepKind = ""
	stepOut      stepKind = "out"
	stepIn       stepKind = "in"
	stepCordon   stepKind = "cordon"
	stepUncordon stepKind = "uncordon"
)

// replica is one seed of a ManagedSeedSet: the set names its replicas
// <set>-<ordinal>, and a ManagedSeed's seed has its name.
type replica struct {
	Name    string
	Ordinal int
	Ready   bool
	Usage   int
	// Allocatable is the seed's allocatable shoots (0 when unset).
	Allocatable int64
	// Cordoned is set when it carries TaintScaleIn, since CordonedAt.
	Cordoned   bool
	CordonedAt time.Time
	Deleting   bool
}

// setFacts are what a step is decided on.
type setFacts struct {
	// Replicas is the set's spec.replicas.
	Replicas int32
	// ScaledAt is the last step's time (AnnotationScaledAt); zero when none.
	ScaledAt time.Time
	// Seeds are the set's replicas that have a seed.
	Seeds []replica
	// Pool is the pool's summary.
	Pool forecast.Summary
	// LowSince is when the scale-in condition began to hold; zero when it
	// does not hold.
	LowSince time.Time
}

// step is one decision of a pool's scaler.
type step struct {
	Kind stepKind
	// To is the new spec.replicas of stepOut and stepIn.
	To int32
	// Seed is the seed to cordon or uncordon.
	Seed string
	// Reason says why, for Events and logs.
	Reason string
	// Waiting says why no step is taken though one is wanted ("" when none
	// is wanted): the state metric and Events carry it.
	Waiting string
}

// Waits, the values of the state label besides "idle" and the step kinds.
const (
	waitAtMax    = "at_max"
	waitSettling = "settling"
	waitCoolDown = "cooling_down"
)

// parseReplica returns the ordinal of a seed named <set>-<ordinal>.
func parseReplica(set, seed string) (int, bool) {
	rest, ok := strings.CutPrefix(seed, set+"-")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n < 0 || strconv.Itoa(n) != rest {
		return 0, false
	}
	return n, true
}

// demand says why the pool needs another seed, or "".
func demand(p forecast.Summary, horizon time.Duration) string {
	switch {
	case p.Waiting == 1:
		return "1 shoot waits for capacity alone"
	case p.Waiting > 1:
		return fmt.Sprintf("%d shoots wait for capacity alone", p.Waiting)
	case p.Full:
		return fmt.Sprintf("no free slot is left (%d of %d used)", p.Usage, p.Allocatable)
	case p.Within(horizon):
		return fmt.Sprintf("at %.1f new shoots an hour the %d free slots are gone in %s, within the horizon of %s",
			p.PerHour, p.Free, p.FullIn.Round(time.Minute), horizon)
	}
	return ""
}

// lowEnough reports whether the pool may lose the alloc slots of the seed
// that goes (those still counted in the pool's sums): usage under
// the low mark of what is left, nothing waiting, and no fill within the
// horizon at the arrival rate without them.
func lowEnough(p forecast.Summary, alloc int64, cfg *configv1alpha1.ManagedSeedSetScaling, horizon time.Duration) bool {
	if p.Waiting > 0 || p.Unbounded {
		return false
	}
	left := p.Allocatable - alloc
	if left <= 0 || p.Usage*100 >= left*int64(cfg.ScaleIn.LowUtilisation) {
		return false
	}
	free := int64(p.Free) - alloc
	if free <= 0 {
		return false
	}
	return p.PerHour == 0 || time.Duration(float64(free)/p.PerHour*float64(time.Hour)) > horizon
}

// victim is the replica Gardener's ManagedSeedSet controller deletes first
// when the set shrinks, among those holding no shoot: not ready before
// ready, then the lowest ordinal.
func victim(seeds []replica) (replica, bool) {
	var empty []replica
	for _, r := range seeds {
		if r.Usage == 0 && !r.Deleting {
			empty = append(empty, r)
		}
	}
	if len(empty) == 0 {
		return replica{}, false
	}
	slices.SortFunc(empty, func(a, b replica) int {
		if a.Ready != b.Ready {
			if !a.Ready {
				return -1
			}
			return 1
		}
		return a.Ordinal - b.Ordinal
	})
	return empty[0], true
}

// cordonSettle is how long a seed stays cordoned before its set is scaled
// in: a binding decided on a view older than the cordon lands within it.
const cordonSettle = time.Minute

// decideStep decides a pool's step. With demand, a seed the annotator
// cordoned is given back before a new one is asked for; a step out waits
// until every replica asked for has a ready seed, and for the cool-down
// after the last step. Without demand, and with scale-in enabled, the seed
// that goes first is cordoned once the pool has been low for the set's
// scaleIn.after, and the set shrinks by one once that seed, cordoned for
// cordonSettle, still holds no shoot; never below minReplicas.
func decideStep(f setFacts, cfg *configv1alpha1.ManagedSeedSetScaling, horizon time.Duration, now time.Time) step {
	var cordoned []replica
	ready := 0
	for _, r := range f.Seeds {
		if r.Cordoned {
			cordoned = append(cordoned, r)
		}
		if r.Ready && !r.Deleting {
			ready++
		}
	}
	settled := ready == int(f.Replicas) && len(f.Seeds) == int(f.Replicas)
	cooling := now.Before(f.ScaledAt.Add(cfg.CoolDown.Duration))
	if why := demand(f.Pool, horizon); why != "" {
		switch {
		case len(cordoned) > 0:
			return step{Kind: stepUncordon, Seed: cordoned[0].Name, Reason: why}
		case f.Replicas >= cfg.MaxReplicas:
			return step{Waiting: waitAtMax, Reason: why}
		case !settled:
			return step{Waiting: waitSettling, Reason: why}
		case cooling:
			return step{Waiting: waitCoolDown, Reason: why}
		}
		return step{Kind: stepOut, To: f.Replicas + 1, Reason: why}
	}
	v, hasVictim := victim(f.Seeds)
	for _, r := range cordoned {
		switch {
		case !cfg.ScaleIn.Enabled:
			return step{Kind: stepUncordon, Seed: r.Name, Reason: "scale-in is off"}
		case !hasVictim || r.Name != v.Name:
			return step{Kind: stepUncordon, Seed: r.Name, Reason: "it is no longer the seed that goes first"}
		case f.LowSince.IsZero():
			return step{Kind: stepUncordon, Seed: r.Name, Reason: "the pool is no longer low"}
		}
	}
	if !cfg.ScaleIn.Enabled || !hasVictim || f.LowSince.IsZero() || now.Sub(f.LowSince) < cfg.ScaleIn.After.Duration ||
		f.Replicas <= cfg.MinReplicas || !settled || cooling {
		return step{}
	}
	why := fmt.Sprintf("the pool has been under %d%% of its allocatable without %s since %s, and %s holds no shoot",
		cfg.ScaleIn.LowUtilisation, v.Name, f.LowSince.UTC().Format(time.RFC3339), v.Name)
	if !v.Cordoned {
		return step{Kind: stepCordon, Seed: v.Name, Reason: why}
	}
	if now.Sub(v.CordonedAt) < cordonSettle {
		return step{}
	}
	return step{Kind: stepIn, To: f.Replicas - 1, Seed: v.Name, Reason: why}
}

// goesFirst is the replica a scale-in would remove: the victim when a
// replica is empty, else the one that would be the victim once empty (by
// the same order).
func goesFirst(seeds []replica) (replica, bool) {
	if v, ok := victim(seeds); ok {
		return v, true
	}
	var live []replica
	for _, r := range seeds {
		if !r.Deleting {
			r.Usage = 0
			live = append(live, r)
		}
	}
	return victim(live)
}

// isLow reports whether the pool may lose the seed that goes first (the
// scale-in condition whose duration decideStep reads as LowSince). It does
// not ask that seed to be empty: decideStep cordons it only once it is, but
// a brief shoot landing on it (a tenant's, every 50 minutes) must not start
// the pool's low time over.
func isLow(f setFacts, cfg *configv1alpha1.ManagedSeedSetScaling, horizon time.Duration) bool {
	v, ok := goesFirst(f.Seeds)
	if !ok || !cfg.ScaleIn.Enabled {
		return false
	}
	alloc := v.Allocatable
	if v.Cordoned {
		alloc = 0 // a cordoned seed's slots are out of the pool's sums already
	}
	return lowEnough(f.Pool, alloc, cfg, horizon)
}
