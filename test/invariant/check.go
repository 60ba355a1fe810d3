package invariant

import (
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"
	"github.com/graft-dev/graft/pkg/algorithm"
)

// Rule names an invariant.
type Rule string

const (
	// RuleSeedFilters: a bound shoot's seed passes the shoot's filters.
	RuleSeedFilters Rule = "SeedFilters"
	// RuleUnknownSeed: a bound shoot's seed exists.
	RuleUnknownSeed Rule = "UnknownSeed"
	// RuleCapacity: no seed counts more shoots than its allocatable shoots.
	RuleCapacity Rule = "Capacity"
	// RuleBoundOnce: spec.seedName changes from one seed to another only
	// through an eviction (cleared first).
	RuleBoundOnce Rule = "BoundOnce"
	// RulePending: a shoot without a seed cannot be placed now, and says so
	// with a Pending lastOperation carrying the reason.
	RulePending Rule = "Pending"
)

// Violation is one broken invariant.
type Violation struct {
	Rule Rule
	// Shoot is namespace/name; empty for seed-level rules.
	Shoot string
	Seed  string
	// Message says what is wrong.
	Message string
	// At is when the checker saw it (zero for a check of a listed state).
	At time.Time
}

func (v Violation) String() string {
	var b strings.Builder
	if !v.At.IsZero() {
		fmt.Fprintf(&b, "%s ", v.At.UTC().Format("15:04:05.000"))
	}
	fmt.Fprintf(&b, "%s: ", v.Rule)
	if v.Shoot != "" {
		fmt.Fprintf(&b, "shoot %s ", v.Shoot)
	}
	if v.Seed != "" {
		fmt.Fprintf(&b, "seed %s ", v.Seed)
	}
	b.WriteString(v.Message)
	return b.String()
}

// Landscape is the state the checker looks at, as listed from the garden.
type Landscape struct {
	Seeds         []*corev1alpha1.Seed
	Shoots        []*corev1alpha1.Shoot
	CloudProfiles []*corev1alpha1.CloudProfile
	// ConfigMaps are the region ConfigMaps (any others are ignored).
	ConfigMaps []*corev1.ConfigMap
	// Config is the scheduler's strategy and scoring.
	Config algorithm.Config
	// Schedulers, when set, give the strategy and scoring of each scheduler
	// by name (corev1alpha1.DefaultSchedulerName for shoots without
	// spec.schedulerName) instead of Config; a shoot of a scheduler not
	// listed is not judged, and says so in the skips.
	Schedulers map[string]algorithm.Config
}

// Deliberate tells whether a shoot is kept on a seed that rejects it on
// purpose; rejection is what the algorithm says about that seed.
type Deliberate func(shoot *corev1alpha1.Shoot, rejection algorithm.SeedResult) bool

// hardFilters reject a seed outright; the later steps (distance, least used,
// score) only rank seeds that are all allowed.
var hardFilters = []algorithm.Filter{
	algorithm.FilterUsable, algorithm.FilterCloudProfileSeedSelector, algorithm.FilterShootSeedSelector,
	algorithm.FilterProvider, algorithm.FilterHighAvailability, algorithm.FilterNetworks,
	algorithm.FilterTaints, algorithm.FilterStrategy,
	// Capacity is left out: a shoot is rejected for capacity on its own seed
	// exactly when that seed counts more than its allocatable, which
	// RuleCapacity reports once per seed.
}

// Check returns every violation of the state invariants (seed filters and
// capacity) in a listed state, and what it could not judge with the reason;
// deliberate may be nil. The Monitor judges what happens over time.
func Check(l Landscape, deliberate Deliberate) ([]Violation, []Skip) {
	snap, inputs := l.prepare()

	var out []Violation
	var skips []Skip
	for _, seed := range l.Seeds {
		alloc, ok := seed.Status.Allocatable[corev1alpha1.ResourceShoots]
		if !ok {
			skips = append(skips, Skip{Rule: RuleCapacity, Seed: seed.Name, Reason: "the seed has no status.allocatable.shoots: no limit to judge against"})
			continue
		}
		if used := int64(snap.Usage(seed.Name)); used > alloc.Value() {
			out = append(out, Violation{Rule: RuleCapacity, Seed: seed.Name,
				Message: fmt.Sprintf("counts %d shoots, allocatable %d", used, alloc.Value())})
		}
	}

	for _, shoot := range l.Shoots {
		if shoot.Spec.SeedName == nil || *shoot.Spec.SeedName == "" || shoot.DeletionTimestamp != nil {
			continue
		}
		seedName := *shoot.Spec.SeedName
		key := algorithm.ShootKey(shoot)
		if _, ok := snap.Seed(seedName); !ok {
			out = append(out, Violation{Rule: RuleUnknownSeed, Shoot: key, Seed: seedName, Message: "is bound to a seed that does not exist"})
			continue
		}
		in, ok := inputs(shoot)
		if !ok {
			skips = append(skips, Skip{Rule: RuleSeedFilters, Shoot: key, Seed: seedName, Reason: "its scheduler is not known to the checker"})
			continue
		}
		e := algorithm.Explain(shoot, snap, in)
		if len(e.Seeds) == 0 && e.Err != nil {
			// Its inputs went bad after it was bound (the Monitor judged the
			// binding with what the scheduler knew then).
			skips = append(skips, Skip{Rule: RuleSeedFilters, Shoot: key, Seed: seedName, Reason: "cannot be evaluated now: " + e.Err.Error()})
			continue
		}
		i := slices.IndexFunc(e.Seeds, func(r algorithm.SeedResult) bool { return r.Seed == seedName })
		if i < 0 {
			skips = append(skips, Skip{Rule: RuleSeedFilters, Shoot: key, Seed: seedName, Reason: "the seed is not in the algorithm's explanation"})
			continue
		}
		r := e.Seeds[i]
		if r.Chosen || !slices.Contains(hardFilters, r.Filter) {
			continue
		}
		if deliberate != nil && deliberate(shoot, r) {
			continue
		}
		out = append(out, Violation{Rule: RuleSeedFilters, Shoot: key, Seed: seedName,
			Message: fmt.Sprintf("is on a seed its filters reject (%s: %s)", r.Filter, r.Message)})
	}
	return out, skips
}

// AllowNoScheduleTaints is a Deliberate for shoots on a seed tainted NoSchedule
// after they were bound (a cordon): NoSchedule keeps new shoots off and lets
// the ones there stay. An untolerated NoExecute taint is never deliberate.
// (A tolerated NoExecute taint does not reject a shoot in the first place.)
func AllowNoScheduleTaints(seeds map[string]*corev1alpha1.Seed) Deliberate {
	return func(shoot *corev1alpha1.Shoot, r algorithm.SeedResult) bool {
		if r.Filter != algorithm.FilterTaints {
			return false
		}
		seed := seeds[r.Seed]
		if seed == nil {
			return false
		}
		untolerated := algorithm.UntoleratedTaints(seed.Spec.Taints, shoot.Spec.Tolerations, corev1alpha1.TaintEffectNoExecute)
		return len(untolerated) == 0
	}
}

// prepare builds the algorithm's snapshot of the landscape and a function
// giving each shoot's inputs.
func (l Landscape) prepare() (*algorithm.Snapshot, func(*corev1alpha1.Shoot) (algorithm.Inputs, bool)) {
	snap := algorithm.NewSnapshot()
	for _, seed := range l.Seeds {
		snap.AddSeed(seed)
	}
	for _, shoot := range l.Shoots {
		snap.AddShoot(shoot)
	}
	profiles := map[string]*corev1alpha1.CloudProfile{}
	for _, cp := range l.CloudProfiles {
		profiles[cp.Name] = cp
	}
	var regionCMs []*corev1.ConfigMap
	for _, cm := range l.ConfigMaps {
		if cm.Labels[corev1alpha1.LabelSchedulingPurpose] == corev1alpha1.LabelSchedulingPurposeRegionConfig {
			regionCMs = append(regionCMs, cm)
		}
	}
	return snap, func(shoot *corev1alpha1.Shoot) (algorithm.Inputs, bool) {
		cfg := l.Config
		if l.Schedulers != nil {
			var ok bool
			if cfg, ok = l.Schedulers[helper.ShootSchedulerName(shoot)]; !ok {
				return algorithm.Inputs{}, false
			}
		}
		name := algorithm.CloudProfileNameOf(shoot)
		return algorithm.Inputs{
			CloudProfile:    profiles[name],
			RegionConfigMap: algorithm.SelectRegionConfigMap(name, regionCMs),
			Config:          cfg,
		}, true
	}
}

// CheckPending returns a violation for every shoot without a seed that the
// algorithm would place now (the scheduler missed it), or that does not carry
// a Pending lastOperation with a description (the user is not told why).
func CheckPending(l Landscape) ([]Violation, []Skip) {
	snap, inputs := l.prepare()
	var out []Violation
	var skips []Skip
	for _, shoot := range l.Shoots {
		if shoot.Spec.SeedName != nil && *shoot.Spec.SeedName != "" || shoot.DeletionTimestamp != nil {
			continue
		}
		key := algorithm.ShootKey(shoot)
		in, ok := inputs(shoot)
		if !ok {
			skips = append(skips, Skip{Rule: RulePending, Shoot: key, Reason: "its scheduler is not known to the checker"})
			continue
		}
		if seed, err := algorithm.Schedule(shoot, snap, in); err == nil {
			out = append(out, Violation{Rule: RulePending, Shoot: key, Seed: seed, Message: "has no seed although this one fits"})
			continue
		}
		op := shoot.Status.LastOperation
		if op == nil || op.State != corev1alpha1.LastOperationStatePending || op.Description == "" {
			out = append(out, Violation{Rule: RulePending, Shoot: key, Message: fmt.Sprintf("has no seed and no Pending lastOperation with a reason (lastOperation %+v)", op)})
		}
	}
	return out, skips
}

// Explain returns the algorithm's explanation for a shoot in the landscape.
func (l Landscape) Explain(shoot *corev1alpha1.Shoot) *algorithm.Explanation {
	snap, inputs := l.prepare()
	in, _ := inputs(shoot)
	return algorithm.Explain(shoot, snap, in)
}
