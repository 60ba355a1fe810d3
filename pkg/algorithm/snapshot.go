package algorithm

import (
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"
)

// Snapshot is the state a decision reads: the seeds, prepared for filtering,
// and how many shoots each seed counts. Every update is O(1). It is not safe
// for concurrent use; callers serialise access. See the package documentation.
type Snapshot struct {
	seeds map[string]*seedInfo
	// list holds the seeds in no particular order so that a decision walks a
	// slice, not a map; pos maps a seed name to its index for O(1) removal.
	list []*seedInfo
	pos  map[string]int
	// seedsShared is set while seeds, list and pos may be shared with a
	// fork: the first seed change of either then copies them (copy on
	// write), since a fork's seeds rarely change and the original's seldom.
	seedsShared bool
	// shoots counts the shoots per seed name, including seeds not (yet) in
	// the snapshot.
	shoots ShootCounter
	// marks counts the seeds each marked filter plugin marks, so that a
	// decision skips a plugin no seed is marked for.
	marks [maxMarks]int
}

// NewSnapshot returns an empty snapshot.
func NewSnapshot() *Snapshot {
	return &Snapshot{
		seeds:  map[string]*seedInfo{},
		pos:    map[string]int{},
		shoots: newShootCounter(),
	}
}

// Clone returns an independent copy: updates to one do not show in the other.
// It costs O(seeds): the per-shoot records are shared until either snapshot
// next adds, updates or removes a shoot, which then copies them once
// (O(shoots)). Seed and shoot objects are shared, never copied. Clone counts
// as an update of s for the locking rules.
func (s *Snapshot) Clone() *Snapshot {
	return &Snapshot{
		seeds:  maps.Clone(s.seeds),
		list:   slices.Clone(s.list),
		pos:    maps.Clone(s.pos),
		shoots: s.shoots.clone(),
		marks:  s.marks,
	}
}

// Fork returns a snapshot for hypothetical changes on top of s as it is now,
// such as the evictions a descheduler pass plans: O(seeds), sharing seeds and
// keeping no per-shoot records. Change a shoot s counted only with
// UpdateShoot(old, new), old being the object s counted (docs/algorithm.md,
// "Snapshot"). Fork counts as a seed update of s for the locking rules.
func (s *Snapshot) Fork() *Snapshot {
	s.seedsShared = true
	return &Snapshot{
		seeds:       s.seeds,
		list:        s.list,
		pos:         s.pos,
		seedsShared: true,
		shoots:      s.shoots.fork(),
		marks:       s.marks,
	}
}

// ownSeeds makes seeds, list and pos s's own before a seed change.
func (s *Snapshot) ownSeeds() {
	if s.seedsShared {
		s.seeds, s.list, s.pos = maps.Clone(s.seeds), slices.Clone(s.list), maps.Clone(s.pos)
		s.seedsShared = false
	}
}

// AddSeed adds a seed or replaces the seed of the same name.
func (s *Snapshot) AddSeed(seed *v1alpha1.Seed) {
	info := newSeedInfo(seed)
	s.ownSeeds()
	if i, ok := s.pos[info.name]; ok {
		s.countMarks(s.list[i], -1)
		s.list[i] = info
	} else {
		s.pos[info.name] = len(s.list)
		s.list = append(s.list, info)
	}
	s.seeds[info.name] = info
	s.countMarks(info, 1)
}

func (s *Snapshot) countMarks(info *seedInfo, delta int) {
	for _, p := range marked {
		if info.marked(p) {
			s.marks[p.markIndex] += delta
		}
	}
}

// UpdateSeed replaces old by new. A rename (never done by the API server)
// removes old.
func (s *Snapshot) UpdateSeed(old, new *v1alpha1.Seed) {
	if old != nil && old.Name != new.Name {
		s.RemoveSeed(old)
	}
	s.AddSeed(new)
}

// RemoveSeed removes the seed of the seed's name. Usage counted on it stays,
// because the shoots still name it.
func (s *Snapshot) RemoveSeed(seed *v1alpha1.Seed) {
	s.RemoveSeedByName(seed.Name)
}

// RemoveSeedByName removes the named seed, for informer tombstones that carry
// only a key.
func (s *Snapshot) RemoveSeedByName(name string) {
	i, ok := s.pos[name]
	if !ok {
		return
	}
	s.ownSeeds()
	s.countMarks(s.list[i], -1)
	last := len(s.list) - 1
	if i != last {
		moved := s.list[last]
		s.list[i] = moved
		s.pos[moved.name] = i
	}
	s.list[last] = nil
	s.list = s.list[:last]
	delete(s.pos, name)
	delete(s.seeds, name)
}

// AddShoot counts a shoot on the seeds SeedNamesCountedFor names, replacing
// whatever was counted for the same namespace/name before.
func (s *Snapshot) AddShoot(shoot *v1alpha1.Shoot) {
	s.shoots.place(ShootKey(shoot), placementOf(shoot))
}

// UpdateShoot replaces the counts of old by those of new.
func (s *Snapshot) UpdateShoot(old, new *v1alpha1.Shoot) {
	if old != nil {
		// A fork learns here where old was counted.
		s.shoots.recordAs(old)
		if ShootKey(old) != ShootKey(new) {
			s.RemoveShoot(old)
		}
	}
	s.AddShoot(new)
}

// RemoveShoot undoes what was counted for the shoot's namespace/name.
func (s *Snapshot) RemoveShoot(shoot *v1alpha1.Shoot) {
	s.RemoveShootByKey(ShootKey(shoot))
}

// RemoveShootByKey undoes what was counted for the shoot with the given
// namespace/name key, for informer tombstones that carry only a key.
func (s *Snapshot) RemoveShootByKey(key string) {
	s.shoots.place(key, placement{})
}

// Usage returns how many shoots are counted on the named seed.
func (s *Snapshot) Usage(seedName string) int { return s.shoots.Count(seedName) }

// Seed returns the named seed.
func (s *Snapshot) Seed(name string) (*v1alpha1.Seed, bool) {
	info, ok := s.seeds[name]
	if !ok {
		return nil, false
	}
	return info.seed, true
}

// Seeds returns the seeds sorted by name.
func (s *Snapshot) Seeds() []*v1alpha1.Seed {
	out := make([]*v1alpha1.Seed, 0, len(s.list))
	for _, info := range s.list {
		out = append(out, info.seed)
	}
	slices.SortFunc(out, func(a, b *v1alpha1.Seed) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// EachSeed calls f with every seed and the shoots counted on it, in no
// particular order.
func (s *Snapshot) EachSeed(f func(seed *v1alpha1.Seed, usage int)) {
	for _, info := range s.list {
		f(info.seed, s.shoots.Count(info.name))
	}
}

// NumSeeds returns the number of seeds.
func (s *Snapshot) NumSeeds() int { return len(s.list) }

// NumShoots returns the number of shoots counted on at least one seed.
func (s *Snapshot) NumShoots() int { return s.shoots.Shoots() }

// CountedOn returns the seeds the snapshot counts the shoot with the given
// namespace/name key on (what was added for it, not what the caller's object
// says now).
func (s *Snapshot) CountedOn(key string) []string {
	return s.shoots.CountedOn(key)
}

// ShootKey returns the namespace/name key of a shoot, as client-go's
// cache.MetaNamespaceKeyFunc does.
func ShootKey(shoot *v1alpha1.Shoot) string {
	if shoot.Namespace == "" {
		return shoot.Name
	}
	return shoot.Namespace + "/" + shoot.Name
}

// KindNamespacedCloudProfile is the kind of a shoot's spec.cloudProfile that
// names a project's own profile, in the shoot's namespace.
const KindNamespacedCloudProfile = "NamespacedCloudProfile"

// NamespacedProfile is the cloud profile a shoot naming the
// NamespacedCloudProfile is decided with: its merged status.cloudProfileSpec
// under the namespaced profile's name and namespace. A profile whose merged
// spec is not written yet is no profile to decide with.
func NamespacedProfile(ncp *v1alpha1.NamespacedCloudProfile) (*v1alpha1.CloudProfile, error) {
	if ncp.Status.CloudProfileSpec.Type == "" {
		return nil, fmt.Errorf("NamespacedCloudProfile %s/%s has no merged status.cloudProfileSpec yet", ncp.Namespace, ncp.Name)
	}
	return &v1alpha1.CloudProfile{
		ObjectMeta: metav1.ObjectMeta{Name: ncp.Name, Namespace: ncp.Namespace},
		Spec:       ncp.Status.CloudProfileSpec,
	}, nil
}

// CloudProfileNameOf returns the name of the shoot's cloud profile:
// spec.cloudProfile.name, or the older spec.cloudProfileName.
func CloudProfileNameOf(shoot *v1alpha1.Shoot) string {
	if shoot.Spec.CloudProfile != nil && shoot.Spec.CloudProfile.Name != "" {
		return shoot.Spec.CloudProfile.Name
	}
	if shoot.Spec.CloudProfileName != nil {
		return *shoot.Spec.CloudProfileName
	}
	return ""
}

// seedInfo is a seed prepared once, when it enters the snapshot, so that a
// decision does no parsing.
type seedInfo struct {
	seed   *v1alpha1.Seed
	name   string
	labels labels.Set

	// unusable is why the seed fails the usable filter; empty when usable.
	unusable string

	providerType string
	region       string
	regionBase   string
	orientation  string
	zones        int

	nets            []network // the seed's own networks
	netErr          string    // why the seed's own networks cannot be read
	defaultErr      [2]string // why its default pod / service networks cannot be read
	defaultPods     []netip.Prefix
	defaultServices []netip.Prefix

	taints []v1alpha1.SeedTaint
	// hasPreferNoSchedule is set when some taint has effect PreferNoSchedule.
	hasPreferNoSchedule bool

	allocatable    int64
	hasAllocatable bool

	// zoneMode is read once for Gardener's zone selection.
	zoneMode v1alpha1.ZoneSelectionMode
	// marks are the marked filter plugins' (filterPlugin.mark).
	marks uint64
}

func newSeedInfo(seed *v1alpha1.Seed) *seedInfo {
	info := &seedInfo{
		seed:         seed,
		name:         seed.Name,
		labels:       labels.Set(seed.Labels),
		unusable:     helper.SeedUnusableReason(seed),
		providerType: seed.Spec.Provider.Type,
		region:       seed.Spec.Provider.Region,
		zones:        len(seed.Spec.Provider.Zones),
		taints:       seed.Spec.Taints,
	}
	info.regionBase, info.orientation = SplitRegion(info.region)
	info.zoneMode = zoneSelectionMode(seed)
	for _, t := range seed.Spec.Taints {
		if helper.TaintEffectOf(t) == v1alpha1.TaintEffectPreferNoSchedule {
			info.hasPreferNoSchedule = true
		}
	}
	if q, ok := seed.Status.Allocatable[v1alpha1.ResourceShoots]; ok {
		info.allocatable, info.hasAllocatable = q.Value(), true
	}
	info.nets, info.defaultPods, info.defaultServices, info.netErr, info.defaultErr = seedNetworks(seed)
	info.marks = seedMarks(info)
	return info
}
