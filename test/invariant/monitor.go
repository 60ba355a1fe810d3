package invariant

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"
	"github.com/graft-dev/graft/pkg/algorithm"
)

// Kind is a kind of object the Monitor follows.
type Kind string

// The kinds a Monitor follows. ConfigMaps are only region ConfigMaps.
const (
	KindShoot        Kind = "Shoot"
	KindSeed         Kind = "Seed"
	KindCloudProfile Kind = "CloudProfile"
	KindConfigMap    Kind = "ConfigMap"
)

// inputKinds are what a scheduling decision reads besides shoots.
var inputKinds = []Kind{KindSeed, KindCloudProfile, KindConfigMap}

// Skip is a judgement the Monitor could not make, and why.
type Skip struct {
	At     time.Time
	Rule   Rule
	Shoot  string
	Seed   string
	Reason string
}

func (s Skip) String() string {
	return fmt.Sprintf("%s not judged for shoot %s seed %s: %s", s.Rule, s.Shoot, s.Seed, s.Reason)
}

// MonitorOptions configure a Monitor.
type MonitorOptions struct {
	// Grace is how far behind the API server a component's view of seeds,
	// cloud profiles and region ConfigMaps may be: a binding passes when it
	// is right for some state of those objects current at most Grace before
	// the checker saw it. Default 30 seconds.
	Grace time.Duration
	// GapGrace replaces Grace for bindings seen less than GapGrace after one
	// of the checker's watches had a gap: an API server that restarted makes
	// every component's watches fall back too, and they catch up with
	// backoff. Default two minutes.
	GapGrace time.Duration
	// Logf receives every violation and every skipped judgement as it
	// happens; default: discard.
	Logf func(format string, args ...any)
	// Ignore tells shoots the Monitor does not judge (they still advance the
	// shoot stream), such as the suite's own flush marker.
	Ignore func(*corev1alpha1.Shoot) bool
	// Now is the clock; default time.Now.
	Now func() time.Time
	// Migrations judges a Gardener garden, where a bound shoot moves from
	// seed to seed in one spec change (a control-plane migration through
	// shoots/binding): such a move is a migration, an eviction and a binding,
	// when the shoot's eviction record newly names the seed it left; the
	// binding is judged as any other.
	Migrations bool
}

// Monitor follows shoots, seeds, cloud profiles and region ConfigMaps through
// watches for a whole suite and records every broken Rule with its time, never
// taking one back. docs/architecture.md ("The invariant monitor") lists what it
// judges and when.
type Monitor struct {
	opts MonitorOptions

	mu         sync.Mutex
	schedulers map[string]algorithm.Config
	shoots     map[string]*shootRecord
	// usage counts every known shoot on its seeds, as the algorithm counts.
	usage    *algorithm.Snapshot
	objects  map[Kind]map[string]*versions
	progress map[Kind]uint64
	listed   map[Kind]bool
	gapStart map[Kind]time.Time
	gaps     int
	// lastGap is when the last watch gap closed.
	lastGap time.Time
	// logged counts the skips by rule, seed and reason; each is logged once.
	logged     map[string]int
	pending    []binding
	violations []Violation
	skips      []Skip
	judged     int
	binds      map[string]int
	evictions  map[string]int
}

type shootRecord struct {
	obj *corev1alpha1.Shoot
	rv  uint64
	// createdBound: the shoot sits on its seed because its creator put it
	// there, not through a binding by a component.
	createdBound bool
	// placedRV is the resourceVersion at which the shoot got its current seed.
	placedRV uint64
}

// binding is a binding waiting for judgement.
type binding struct {
	shoot *corev1alpha1.Shoot
	seed  string
	rv    uint64
	// from is the oldest time whose input states the scheduler may have used.
	from time.Time
	at   time.Time
	// others counts the shoots counted on the seed besides this one, at rv;
	// unknown are those of them the scheduler cannot have known of (created
	// bound after the version of the shoot the scheduler read).
	others  int
	unknown []string
	// capacityReason, when set, says why capacity cannot be judged.
	capacityReason string
}

// NewMonitor returns a Monitor that knows no schedulers yet (see SetScheduler).
func NewMonitor(opts MonitorOptions) *Monitor {
	if opts.Grace == 0 {
		opts.Grace = 30 * time.Second
	}
	if opts.GapGrace == 0 {
		opts.GapGrace = 2 * time.Minute
	}
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	m := &Monitor{
		opts:       opts,
		schedulers: map[string]algorithm.Config{},
		shoots:     map[string]*shootRecord{},
		usage:      algorithm.NewSnapshot(),
		objects:    map[Kind]map[string]*versions{},
		progress:   map[Kind]uint64{},
		listed:     map[Kind]bool{},
		gapStart:   map[Kind]time.Time{},
		logged:     map[string]int{},
		binds:      map[string]int{},
		evictions:  map[string]int{},
	}
	for _, k := range inputKinds {
		m.objects[k] = map[string]*versions{}
	}
	return m
}

// SetScheduler tells the Monitor how the scheduler of that name decides, so
// that it can judge the bindings of shoots naming it in spec.schedulerName
// (empty means corev1alpha1.DefaultSchedulerName).
func (m *Monitor) SetScheduler(name string, cfg algorithm.Config) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.schedulers[name] = cfg
}

func kindOf(obj runtime.Object) (Kind, bool) {
	switch o := obj.(type) {
	case *corev1alpha1.Shoot:
		return KindShoot, true
	case *corev1alpha1.Seed:
		return KindSeed, true
	case *corev1alpha1.CloudProfile:
		return KindCloudProfile, true
	case *corev1.ConfigMap:
		return KindConfigMap, o.Labels[corev1alpha1.LabelSchedulingPurpose] == corev1alpha1.LabelSchedulingPurposeRegionConfig
	}
	return "", false
}

func objectKey(o metav1.Object) string {
	if o.GetNamespace() == "" {
		return o.GetName()
	}
	return o.GetNamespace() + "/" + o.GetName()
}

// Observe records an object from a watch event (ADDED or MODIFIED), in the
// order the watch delivered it.
func (m *Monitor) Observe(obj runtime.Object) { m.record(obj, false) }

// Delete records an object from a watch event DELETED.
func (m *Monitor) Delete(obj runtime.Object) { m.record(obj, true) }

func (m *Monitor) record(obj runtime.Object, deleted bool) {
	kind, ok := kindOf(obj)
	if !ok {
		return
	}
	acc, err := meta.Accessor(obj)
	if err != nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	rv, ok := m.rvOf(kind, acc)
	if !ok {
		return
	}
	m.advance(kind, rv)
	now := m.opts.Now()
	switch {
	case kind == KindShoot && deleted:
		m.forgetShoot(objectKey(acc))
	case kind == KindShoot:
		m.observeShoot(obj.(*corev1alpha1.Shoot), rv, now, time.Time{})
	case deleted:
		m.addVersion(kind, acc, version{rv: rv, seen: now}, now)
	default:
		m.addVersion(kind, acc, version{rv: rv, seen: now, obj: acc}, now)
	}
}

// Progress records a watch bookmark: the watch has delivered everything up
// to resourceVersion rv.
func (m *Monitor) Progress(kind Kind, rv string) {
	n, ok := parseRV(rv)
	if !ok {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.advance(kind, n)
}

// Gap records that a watch of kind ended and could not be resumed: what
// happened until the next Relist is not seen.
func (m *Monitor) Gap(kind Kind) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, open := m.gapStart[kind]; !open {
		m.gapStart[kind] = m.opts.Now()
	}
	m.gaps++
}

// Relist records the complete list of a kind at resourceVersion listRV: the
// first list of a watch, its list after a Gap, or (for the input kinds) a
// list taken to catch up with a binding (see Lagging).
func (m *Monitor) Relist(kind Kind, objs []runtime.Object, listRV string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.opts.Now()
	initial := !m.listed[kind]
	m.listed[kind] = true
	gapStart, inGap := m.gapStart[kind]
	delete(m.gapStart, kind)
	if inGap {
		m.lastGap = now
	} else {
		gapStart = now
	}
	listed := map[string]bool{}
	for _, obj := range objs {
		k, ok := kindOf(obj)
		if !ok || k != kind {
			continue
		}
		acc, err := meta.Accessor(obj)
		if err != nil {
			continue
		}
		rv, ok := m.rvOf(kind, acc)
		if !ok {
			continue
		}
		key := objectKey(acc)
		listed[key] = true
		if kind == KindShoot {
			shoot := obj.(*corev1alpha1.Shoot)
			if initial {
				m.observeShoot(shoot, rv, now, time.Time{})
			} else {
				m.observeShoot(shoot, rv, now, gapStart.Add(-m.opts.GapGrace))
			}
			continue
		}
		seen := now
		if initial {
			seen = time.Time{}
		}
		m.addVersion(kind, acc, version{rv: rv, seen: seen, obj: acc}, seen)
	}
	listRVn, ok := parseRV(listRV)
	if !ok {
		return
	}
	// What the list lacks was deleted at or before listRV.
	if kind == KindShoot {
		for key := range m.shoots {
			if !listed[key] {
				m.logf("shoot %s was deleted during a watch gap", key)
				m.forgetShoot(key)
			}
		}
	} else {
		for key, vs := range m.objects[kind] {
			if !listed[key] && vs.latest() != nil && vs.list[len(vs.list)-1].rv <= listRVn {
				vs.add(version{rv: listRVn, seen: now})
			}
		}
	}
	m.advance(kind, listRVn)
}

// Lagging returns the input kinds whose view is behind a pending binding:
// list them and pass the lists to Relist so that the binding can be judged.
func (m *Monitor) Lagging() []Kind {
	m.mu.Lock()
	defer m.mu.Unlock()
	var maxRV uint64
	for _, b := range m.pending {
		maxRV = max(maxRV, b.rv)
	}
	var out []Kind
	for _, k := range inputKinds {
		if len(m.pending) > 0 && m.progress[k] < maxRV {
			out = append(out, k)
		}
	}
	return out
}

// Judge judges every pending binding whose inputs the checker has seen up
// to the binding's resourceVersion, and returns how many remain pending.
func (m *Monitor) Judge() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	var keep []binding
	for _, b := range m.pending {
		ready := true
		for _, k := range inputKinds {
			if m.progress[k] < b.rv {
				ready = false
			}
		}
		if !ready {
			keep = append(keep, b)
			continue
		}
		m.judge(b)
		m.judged++
	}
	m.pending = keep
	return len(keep)
}

// PendingUpTo returns how many bindings at or before resourceVersion rv
// still wait for judgement.
func (m *Monitor) PendingUpTo(rv string) int {
	n, _ := parseRV(rv)
	m.mu.Lock()
	defer m.mu.Unlock()
	c := 0
	for _, b := range m.pending {
		if b.rv <= n {
			c++
		}
	}
	return c
}

// Reached reports whether the watch of kind has delivered everything up to
// resourceVersion rv.
func (m *Monitor) Reached(kind Kind, rv string) bool {
	n, ok := parseRV(rv)
	if !ok {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.progress[kind] >= n
}

// Violations returns every violation recorded so far, oldest first.
func (m *Monitor) Violations() []Violation {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.violations)
}

// Skips returns every judgement that could not be made, oldest first.
func (m *Monitor) Skips() []Skip {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.skips)
}

// Judged returns how many bindings were judged.
func (m *Monitor) Judged() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.judged
}

// Gaps returns how many times a watch could not be resumed.
func (m *Monitor) Gaps() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.gaps
}

// Binds returns how many bindings of the shoot (namespace/name) were seen,
// including ones a relist proved.
func (m *Monitor) Binds(key string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.binds[key]
}

// Evictions returns how many times the shoot's spec.seedName was seen cleared.
func (m *Monitor) Evictions(key string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.evictions[key]
}

func (m *Monitor) logf(format string, args ...any) { m.opts.Logf(format, args...) }

func (m *Monitor) violate(v Violation) {
	v.At = m.opts.Now()
	m.violations = append(m.violations, v)
	m.logf("invariant violated: %s", v)
}

func (m *Monitor) skip(s Skip) {
	s.At = m.opts.Now()
	m.skips = append(m.skips, s)
	// Logged once per rule, seed and reason; every skip is kept.
	k := string(s.Rule) + "\x00" + s.Seed + "\x00" + s.Reason
	if m.logged[k]++; m.logged[k] == 1 {
		m.logf("invariant %s", s)
	}
}

// grace is how old an input state a binding seen now may have been decided on.
func (m *Monitor) grace(now time.Time) time.Duration {
	if !m.lastGap.IsZero() && now.Sub(m.lastGap) < m.opts.GapGrace {
		return m.opts.GapGrace
	}
	return m.opts.Grace
}

// SkipSummary returns each distinct skipped judgement once, with how often
// it was skipped.
func (m *Monitor) SkipSummary() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	seen := map[string]bool{}
	var out []string
	for _, s := range m.skips {
		k := string(s.Rule) + "\x00" + s.Seed + "\x00" + s.Reason
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, fmt.Sprintf("%dx %s", m.logged[k], s))
	}
	return out
}

func (m *Monitor) rvOf(kind Kind, acc metav1.Object) (uint64, bool) {
	rv, ok := parseRV(acc.GetResourceVersion())
	if !ok {
		m.skip(Skip{Rule: "*", Shoot: objectKey(acc), Reason: fmt.Sprintf("%s %s has resourceVersion %q, not a number: the order of changes is unknown",
			kind, objectKey(acc), acc.GetResourceVersion())})
	}
	return rv, ok
}

func (m *Monitor) advance(kind Kind, rv uint64) {
	m.progress[kind] = max(m.progress[kind], rv)
}

func (m *Monitor) addVersion(kind Kind, acc metav1.Object, v version, created time.Time) {
	key := objectKey(acc)
	vs := m.objects[kind][key]
	if vs == nil {
		vs = &versions{created: created}
		m.objects[kind][key] = vs
	}
	vs.add(v)
}

func (m *Monitor) forgetShoot(key string) {
	m.usage.RemoveShootByKey(key)
	delete(m.shoots, key)
	delete(m.binds, key)
	delete(m.evictions, key)
}

func seedOf(shoot *corev1alpha1.Shoot) string {
	if shoot.Spec.SeedName == nil {
		return ""
	}
	return *shoot.Spec.SeedName
}

// observeShoot records one state of a shoot. gapFrom is zero for a state
// from a watch event or the first list; after a watch gap it is the oldest
// time the changes since the previous state may have been made at.
func (m *Monitor) observeShoot(shoot *corev1alpha1.Shoot, rv uint64, now, gapFrom time.Time) {
	key := algorithm.ShootKey(shoot)
	if m.opts.Ignore != nil && m.opts.Ignore(shoot) {
		return
	}
	prev := m.shoots[key]
	cur := seedOf(shoot)
	afterGap := !gapFrom.IsZero()
	rec := &shootRecord{obj: shoot, rv: rv}
	m.usage.AddShoot(shoot)
	if prev == nil {
		m.shoots[key] = rec
		rec.placedRV = rv
		switch {
		case cur == "":
		case shoot.Generation == 1:
			// Created with spec.seedName: its creator's choice, not a binding.
			rec.createdBound = true
		case afterGap && shoot.Generation == 2:
			// Created without a seed during the gap and bound once.
			m.binds[key]++
			m.enqueue(shoot, rv, gapFrom, now, 0, "bound during a watch gap: the usage of the seed at the binding is not known")
		default:
			m.skip(Skip{Rule: RuleBoundOnce, Shoot: key, Seed: cur, Reason: fmt.Sprintf(
				"first seen bound at generation %d: its earlier spec changes were not watched", shoot.Generation)})
		}
		return
	}
	m.shoots[key] = rec
	last := seedOf(prev.obj)
	rec.createdBound = prev.createdBound && cur == last
	rec.placedRV = prev.placedRV
	genDelta := shoot.Generation - prev.obj.Generation
	if cur != last || (afterGap && genDelta > 0 && cur != "") {
		rec.placedRV = rv
	}
	switch {
	case !afterGap && cur == last:
		// A status or metadata change.
	case !afterGap && cur == "":
		m.evictions[key]++
	case !afterGap && last == "":
		m.binds[key]++
		m.enqueue(shoot, rv, now.Add(-m.grace(now)), now, prev.rv, "")
	case !afterGap && m.opts.Migrations && migrationRecorded(prev.obj, shoot):
		m.evictions[key]++
		m.binds[key]++
		m.enqueue(shoot, rv, now.Add(-m.grace(now)), now, prev.rv, "")
	case !afterGap:
		m.binds[key]++
		m.violate(Violation{Rule: RuleBoundOnce, Shoot: key, Seed: cur,
			Message: fmt.Sprintf("moved from seed %s to %s without being unbound first (generation %d to %d)", last, cur, prev.obj.Generation, shoot.Generation)})
		m.enqueue(shoot, rv, now.Add(-m.grace(now)), now, prev.rv, "")

	// After a gap only the listed state is known; the generation counts the
	// spec changes made meanwhile (in this suite only bindings and evictions
	// change a shoot's spec).
	case genDelta == 0:
	case cur == "":
		m.evictions[key] += int(genDelta+1) / 2
		m.binds[key] += int(genDelta-1) / 2
		if genDelta > 1 {
			m.skip(Skip{Rule: RuleSeedFilters, Shoot: key, Reason: fmt.Sprintf("%d spec changes during a watch gap ended unbound: the seeds it was bound to meanwhile are not known", genDelta)})
		}
	case last == "":
		m.binds[key] += int(genDelta+1) / 2
		m.evictions[key] += int(genDelta-1) / 2
		if genDelta > 1 {
			m.skip(Skip{Rule: RuleBoundOnce, Shoot: key, Seed: cur, Reason: fmt.Sprintf("%d spec changes during a watch gap: only the last binding is judged", genDelta)})
		}
		m.enqueue(shoot, rv, gapFrom, now, prev.rv, "bound during a watch gap: the usage of the seed at the binding is not known")
	default:
		// Bound before and after the gap.
		if m.opts.Migrations && genDelta == 1 && migrationRecorded(prev.obj, shoot) {
			m.evictions[key]++
			m.binds[key]++
		} else if proven, why := unbindProven(prev.obj, shoot, genDelta); !proven {
			m.binds[key]++
			m.violate(Violation{Rule: RuleBoundOnce, Shoot: key, Seed: cur,
				Message: fmt.Sprintf("was on seed %s before a watch gap and on %s after it, and nothing proves it was unbound in between: %s", last, cur, why)})
		} else {
			m.evictions[key]++
			m.binds[key]++
		}
		m.enqueue(shoot, rv, gapFrom, now, prev.rv, "bound during a watch gap: the usage of the seed at the binding is not known")
	}
}

// migrationRecorded tells whether a shoot that moved from the seed before to
// another in one change was migrated by graft-descheduler: its eviction record
// (graft.dev/evictions) has a newer eviction from that seed than before.
func migrationRecorded(before, after *corev1alpha1.Shoot) bool {
	from := seedOf(before)
	latest := func(s *corev1alpha1.Shoot) (at time.Time) {
		for _, e := range helper.Evictions(s) {
			if e.Seed == from && e.At.After(at) {
				at = e.At
			}
		}
		return at
	}
	was, now := latest(before), latest(after)
	return after.Annotations[corev1alpha1.AnnotationDescheduledFrom] == from && now.After(was)
}

// unbindProven tells whether a shoot seen on one seed before a watch gap and
// bound again after it (on the same or another seed) went through an
// eviction: exactly two spec changes (an eviction, a binding) and the
// eviction's annotation newly naming the seed it left.
func unbindProven(before, after *corev1alpha1.Shoot, genDelta int64) (bool, string) {
	from := seedOf(before)
	if genDelta != 2 {
		return false, fmt.Sprintf("its generation went from %d to %d, where one eviction and one binding make two", before.Generation, after.Generation)
	}
	if after.Annotations[corev1alpha1.AnnotationDescheduledFrom] != from {
		return false, fmt.Sprintf("annotation %s is %q, not %q", corev1alpha1.AnnotationDescheduledFrom, after.Annotations[corev1alpha1.AnnotationDescheduledFrom], from)
	}
	if before.Annotations[corev1alpha1.AnnotationDescheduledFrom] == from {
		return false, fmt.Sprintf("annotation %s already named %s before the gap", corev1alpha1.AnnotationDescheduledFrom, from)
	}
	return true, ""
}

// enqueue records a binding for judgement. prevRV is the resourceVersion of
// the shoot's state the scheduler read (0: unknown).
func (m *Monitor) enqueue(shoot *corev1alpha1.Shoot, rv uint64, from, now time.Time, prevRV uint64, capacityReason string) {
	key := algorithm.ShootKey(shoot)
	seed := seedOf(shoot)
	b := binding{shoot: shoot, seed: seed, rv: rv, from: from, at: now, capacityReason: capacityReason}
	for other, rec := range m.shoots {
		if other == key || !slices.Contains(algorithm.SeedNamesCountedFor(rec.obj), seed) {
			continue
		}
		b.others++
		if rec.createdBound && rec.placedRV > prevRV {
			b.unknown = append(b.unknown, other)
		}
	}
	sort.Strings(b.unknown)
	m.pending = append(m.pending, b)
}

// judge decides one binding against every state of its inputs the
// scheduler may have used; it passes when one of them allows it.
func (m *Monitor) judge(b binding) {
	key := algorithm.ShootKey(b.shoot)
	name := helper.ShootSchedulerName(b.shoot)
	cfg, ok := m.schedulers[name]
	if !ok {
		m.skip(Skip{Rule: RuleSeedFilters, Shoot: key, Seed: b.seed, Reason: fmt.Sprintf("scheduler %q is not known to the checker", name)})
		return
	}
	seedVersions := m.objects[KindSeed][b.seed]
	var seedCandidates []*corev1alpha1.Seed
	if seedVersions != nil {
		for _, o := range seedVersions.candidates(b.rv, b.from) {
			if o != nil {
				seedCandidates = append(seedCandidates, o.(*corev1alpha1.Seed))
			}
		}
	}
	if len(seedCandidates) == 0 {
		m.violate(Violation{Rule: RuleUnknownSeed, Shoot: key, Seed: b.seed, Message: "was bound to a seed that did not exist"})
		return
	}

	// The other seeds as they were at the binding.
	var others []*corev1alpha1.Seed
	for n, vs := range m.objects[KindSeed] {
		if n == b.seed {
			continue
		}
		if o := vs.at(b.rv); o != nil {
			others = append(others, o.(*corev1alpha1.Seed))
		}
	}
	profileName := algorithm.CloudProfileNameOf(b.shoot)
	var profiles []*corev1alpha1.CloudProfile
	if vs := m.objects[KindCloudProfile][profileName]; vs != nil {
		for _, o := range vs.candidates(b.rv, b.from) {
			if o != nil {
				profiles = append(profiles, o.(*corev1alpha1.CloudProfile))
			}
		}
	}
	if len(profiles) == 0 {
		m.violate(Violation{Rule: RuleSeedFilters, Shoot: key, Seed: b.seed, Message: fmt.Sprintf("was bound while its cloud profile %q did not exist", profileName)})
		return
	}

	// The states of the seed in which the scheduler could have chosen it.
	var rejections []string
	var accepting []*corev1alpha1.Seed
	views := m.configMapViews(b.rv, b.from)
	for _, seed := range seedCandidates {
		accepted := false
		for _, view := range views {
			for _, profile := range profiles {
				reason := filterVerdict(b.shoot, seed, others, profile, view, cfg)
				if reason == "" {
					accepted = true
					break
				}
				rejections = append(rejections, reason)
			}
			if accepted {
				break
			}
		}
		if accepted {
			accepting = append(accepting, seed)
		}
	}
	if len(accepting) == 0 {
		m.violate(Violation{Rule: RuleSeedFilters, Shoot: key, Seed: b.seed,
			Message: "was bound to a seed its filters reject in every state the scheduler could have known: " + strings.Join(slices.Compact(rejections), "; ")})
		accepting = seedCandidates
	}
	m.judgeCapacity(b, accepting)
}

// judgeCapacity: binding b made the seed count more shoots than its
// allocatable in every state of the seed the scheduler could have chosen it
// in (a seed just created, without status, is not ready and not chosen).
func (m *Monitor) judgeCapacity(b binding, seeds []*corev1alpha1.Seed) {
	key := algorithm.ShootKey(b.shoot)
	if b.capacityReason != "" {
		m.skip(Skip{Rule: RuleCapacity, Shoot: key, Seed: b.seed, Reason: b.capacityReason})
		return
	}
	var most int64 = -1
	for _, seed := range seeds {
		alloc, ok := seed.Status.Allocatable[corev1alpha1.ResourceShoots]
		if !ok {
			m.skip(Skip{Rule: RuleCapacity, Shoot: key, Seed: b.seed, Reason: "the seed had no status.allocatable.shoots in a state the scheduler could have chosen it in: no limit to judge against"})
			return
		}
		most = max(most, alloc.Value())
	}
	if int64(b.others) < most {
		return
	}
	if int64(b.others-len(b.unknown)) < most {
		m.skip(Skip{Rule: RuleCapacity, Shoot: key, Seed: b.seed, Reason: fmt.Sprintf(
			"it became shoot %d of allocatable %d only with %v, created bound to the seed after the scheduler read the shoot", b.others+1, most, b.unknown)})
		return
	}
	m.violate(Violation{Rule: RuleCapacity, Shoot: key, Seed: b.seed, Message: fmt.Sprintf(
		"was bound as shoot %d of a seed with allocatable %d (the most it had in any state the scheduler could have known)", b.others+1, most)})
}

// configMapViews returns the sets of region ConfigMaps the scheduler may have
// seen: those current at rv, and each variation of one ConfigMap to another
// of its candidate states.
func (m *Monitor) configMapViews(rv uint64, from time.Time) [][]*corev1.ConfigMap {
	base := map[string]*corev1.ConfigMap{}
	for key, vs := range m.objects[KindConfigMap] {
		if o := vs.at(rv); o != nil {
			base[key] = o.(*corev1.ConfigMap)
		}
	}
	flatten := func(set map[string]*corev1.ConfigMap) []*corev1.ConfigMap {
		out := make([]*corev1.ConfigMap, 0, len(set))
		for _, cm := range set {
			if cm != nil {
				out = append(out, cm)
			}
		}
		return out
	}
	views := [][]*corev1.ConfigMap{flatten(base)}
	for key, vs := range m.objects[KindConfigMap] {
		for _, o := range vs.candidates(rv, from) {
			var cm *corev1.ConfigMap
			if o != nil {
				cm = o.(*corev1.ConfigMap)
			}
			if cm == base[key] {
				continue
			}
			alt := map[string]*corev1.ConfigMap{}
			for k, v := range base {
				alt[k] = v
			}
			alt[key] = cm
			views = append(views, flatten(alt))
		}
	}
	return views
}

// filterVerdict returns why the algorithm's hard filters reject seed for the
// shoot with these inputs, or "" when they do not. Capacity is left to
// judgeCapacity (the snapshot holds no shoots).
func filterVerdict(shoot *corev1alpha1.Shoot, seed *corev1alpha1.Seed, others []*corev1alpha1.Seed, profile *corev1alpha1.CloudProfile, cms []*corev1.ConfigMap, cfg algorithm.Config) string {
	snap := algorithm.NewSnapshot()
	snap.AddSeed(seed)
	for _, o := range others {
		snap.AddSeed(o)
	}
	in := algorithm.Inputs{CloudProfile: profile, RegionConfigMap: algorithm.SelectRegionConfigMap(profile.Name, cms), Config: cfg}
	e := algorithm.Explain(shoot, snap, in)
	i := slices.IndexFunc(e.Seeds, func(r algorithm.SeedResult) bool { return r.Seed == seed.Name })
	if i < 0 {
		if e.Err != nil {
			return "the shoot cannot be evaluated: " + e.Err.Error()
		}
		return "the seed is not in the algorithm's explanation"
	}
	r := e.Seeds[i]
	if r.Chosen || !slices.Contains(hardFilters, r.Filter) {
		return ""
	}
	return fmt.Sprintf("%s: %s", r.Filter, r.Message)
}

// History returns the states of an input object (kind Seed, CloudProfile or
// ConfigMap; key namespace/name or name) the checker saw after
// resourceVersion since, oldest first, without the absent states.
func (m *Monitor) History(kind Kind, key, since string) []metav1.Object {
	from, _ := parseRV(since)
	m.mu.Lock()
	defer m.mu.Unlock()
	vs := m.objects[kind][key]
	if vs == nil {
		return nil
	}
	var out []metav1.Object
	for _, v := range vs.list {
		if v.rv > from && v.obj != nil {
			out = append(out, v.obj)
		}
	}
	return out
}
