package algorithm

import (
	"maps"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

// ShootCounter counts shoots per seed by the rule of SeedNamesCountedFor. It
// remembers, per namespace/name, where each shoot was counted, so that an
// update or a removal undoes exactly what was added, replaying an event never
// counts a shoot twice, and every change is O(1). The scheduler's Snapshot and
// the capacity annotator's usage both count with it, so they agree.
//
// It is not safe for concurrent use; callers serialise access.
type ShootCounter struct {
	// perSeed is the number of shoots counted on each seed name, including
	// seeds that do not exist (yet); zero counts are deleted so that the map
	// does not grow with seeds that went away.
	perSeed map[string]int
	// shoots is where each shoot was counted, keyed by namespace/name.
	shoots map[string]placement
	// shared is set while shoots is shared with a clone: the first change
	// then copies it (copy on write), keeping Clone O(seeds).
	shared bool
	// partial is set on a fork (see Snapshot.Fork): shoots then holds only
	// the shoots changed on the fork, and any other shoot is counted where
	// the object the caller hands in as its current state says.
	partial bool
}

// NewShootCounter returns an empty counter.
func NewShootCounter() *ShootCounter {
	c := newShootCounter()
	return &c
}

func newShootCounter() ShootCounter {
	return ShootCounter{perSeed: map[string]int{}, shoots: map[string]placement{}}
}

// Set counts the shoot as it is now (an add or an update), replacing what was
// counted for its namespace/name before, and returns the seeds whose count
// changed (nil when none did).
func (c *ShootCounter) Set(shoot *v1alpha1.Shoot) []string {
	return c.change(ShootKey(shoot), placementOf(shoot))
}

// Delete undoes what was counted for the shoot with the given namespace/name
// key and returns the seeds whose count changed. It needs only the key, so it
// works for informer tombstones that may not carry the last state.
func (c *ShootCounter) Delete(key string) []string {
	return c.change(key, placement{})
}

// change is place, reporting the seeds whose count changed: those counted
// before and not now, then those counted now and not before.
func (c *ShootCounter) change(key string, p placement) []string {
	old, changed := c.place(key, p)
	if !changed {
		return nil
	}
	var out []string
	for _, s := range old.names() {
		if !p.has(s) {
			out = append(out, s)
		}
	}
	for _, s := range p.names() {
		if !old.has(s) {
			out = append(out, s)
		}
	}
	return out
}

// place records p as where the shoot with the given key is counted and
// returns what was recorded before and whether anything changed. It does
// not allocate unless the shoot records must be copied after a Clone.
func (c *ShootCounter) place(key string, p placement) (placement, bool) {
	old, ok := c.shoots[key]
	if (ok && old == p) || (!ok && p.empty()) {
		return old, false
	}
	if c.shared {
		c.shoots = maps.Clone(c.shoots)
		c.shared = false
	}
	if ok {
		c.add(old.spec, -1)
		c.add(old.status, -1)
	}
	if p.empty() {
		delete(c.shoots, key)
	} else {
		c.add(p.spec, 1)
		c.add(p.status, 1)
		c.shoots[key] = p
	}
	return old, true
}

func (c *ShootCounter) add(seed string, delta int) {
	if seed == "" {
		return
	}
	n := c.perSeed[seed] + delta
	if n <= 0 {
		delete(c.perSeed, seed)
		return
	}
	c.perSeed[seed] = n
}

// Count returns how many shoots are counted on the named seed.
func (c *ShootCounter) Count(seed string) int { return c.perSeed[seed] }

// Shoots returns the number of shoots counted on at least one seed.
func (c *ShootCounter) Shoots() int { return len(c.shoots) }

// CountedOn returns the seeds the shoot with the given namespace/name key is
// counted on (what was set for it, not what the caller's object says now).
func (c *ShootCounter) CountedOn(key string) []string { return c.shoots[key].names() }

// Clone returns an independent copy. It costs O(seeds): the per-shoot records
// are shared until either counter next changes, which then copies them once.
// Clone counts as a change of c for the locking rules.
func (c *ShootCounter) Clone() *ShootCounter {
	clone := c.clone()
	return &clone
}

func (c *ShootCounter) clone() ShootCounter {
	c.shared = true
	return ShootCounter{perSeed: maps.Clone(c.perSeed), shoots: c.shoots, shared: true, partial: c.partial}
}

// fork returns a counter with c's counts and none of its per-shoot records
// (a fork of a fork keeps the few records its changes made). It costs
// O(seeds) and leaves c alone, so c may go on changing while the fork is in
// use elsewhere.
func (c *ShootCounter) fork() ShootCounter {
	f := ShootCounter{perSeed: maps.Clone(c.perSeed), shoots: map[string]placement{}, partial: true}
	if c.partial {
		f.shoots = maps.Clone(c.shoots)
	}
	return f
}

// countedAs returns where the shoot is counted: its record, or, on a fork,
// for a shoot not changed on it, where the object says.
func (c *ShootCounter) countedAs(shoot *v1alpha1.Shoot) placement {
	p, ok := c.shoots[ShootKey(shoot)]
	if !ok && c.partial {
		return placementOf(shoot)
	}
	return p
}

// recordAs makes a fork remember the shoot as counted where the object
// says, unless it knows the shoot already; the counts already include it.
// A counter with every record has nothing to learn.
func (c *ShootCounter) recordAs(shoot *v1alpha1.Shoot) {
	if !c.partial {
		return
	}
	key := ShootKey(shoot)
	if _, ok := c.shoots[key]; ok {
		return
	}
	if p := placementOf(shoot); !p.empty() {
		if c.shared {
			c.shoots = maps.Clone(c.shoots)
			c.shared = false
		}
		c.shoots[key] = p
	}
}

// placement is the (at most two) seeds a shoot is counted on.
type placement struct {
	spec, status string
}

func (p placement) empty() bool { return p.spec == "" && p.status == "" }

func (p placement) has(seed string) bool {
	return seed != "" && (p.spec == seed || p.status == seed)
}

func (p placement) names() []string {
	var out []string
	if p.spec != "" {
		out = append(out, p.spec)
	}
	if p.status != "" {
		out = append(out, p.status)
	}
	return out
}

// SeedNamesCountedFor returns the seeds whose usage a shoot counts toward:
// spec.seedName, and status.seedName when it is set and differs (a control
// plane migration in flight, or a shoot evicted from status.seedName whose
// control plane is still there). A shoot being deleted still counts: its
// control plane runs until the deletion finishes. ShootCounter counts by this
// rule.
func SeedNamesCountedFor(shoot *v1alpha1.Shoot) []string {
	return placementOf(shoot).names()
}

func placementOf(shoot *v1alpha1.Shoot) placement {
	var p placement
	if shoot.Spec.SeedName != nil {
		p.spec = *shoot.Spec.SeedName
	}
	if shoot.Status.SeedName != nil && *shoot.Status.SeedName != p.spec {
		p.status = *shoot.Status.SeedName
	}
	return p
}
