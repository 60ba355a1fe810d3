package scheduler

import (
	"errors"
	"slices"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/algorithm"
	"github.com/graft-dev/graft/pkg/component/ownwrites"
)

// errAssumed says that the shoot was already bound by this scheduler and the
// informer has not shown it yet: nothing to do.
var errAssumed = errors.New("shoot already bound, waiting for the informer to show it")

// assumption is a binding made (or being made) by this scheduler that the
// informer has not shown yet.
type assumption struct {
	seed string
	// seedRV is the resourceVersion of the chosen seed in the snapshot the
	// decision read.
	seedRV string
	// bindDone is set once the API write succeeded; only then can the
	// assumption expire (a write in flight is never given up on by time).
	bindDone bool
	doneAt   time.Time
}

// schedulingCache holds what decisions read: a Snapshot kept current from the
// informers, the assumed bindings counted in it, and the region ConfigMaps. All
// methods take the lock; decide decides on a fork without it and reserves
// under it (see decide).
type schedulingCache struct {
	mu       sync.Mutex
	snapshot *algorithm.Snapshot
	assumed  map[string]*assumption
	// bound holds the version of each assumed binding once it succeeded:
	// every version from it on shows the binding or a change made after
	// it. Versions between the one the decision read and the binding exist
	// (a binding is preconditioned on the fields the decision read, not on
	// the whole version, so a status write may land in between) and show
	// the shoot unbound; they are older than the binding.
	bound *ownwrites.Tracker[*metav1.ObjectMeta]
}

func newSchedulingCache() *schedulingCache {
	return &schedulingCache{
		snapshot: algorithm.NewSnapshot(),
		assumed:  map[string]*assumption{},
		bound:    ownwrites.New[*metav1.ObjectMeta](),
	}
}

// dropAssumption forgets the assumed binding of key. Callers hold the lock.
func (c *schedulingCache) dropAssumption(key string) {
	delete(c.assumed, key)
	c.bound.Forget(key)
}

func (c *schedulingCache) addSeed(seed *corev1alpha1.Seed) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.snapshot.AddSeed(seed)
}

// seedResourceVersion returns the resourceVersion of the cached seed, empty
// when the cache does not hold it.
func (c *schedulingCache) seedResourceVersion(name string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if seed, ok := c.snapshot.Seed(name); ok {
		return seed.ResourceVersion
	}
	return ""
}

func (c *schedulingCache) removeSeed(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.snapshot.RemoveSeedByName(name)
}

// upsertShoot records the informer's view of a shoot. While this scheduler's
// binding of the shoot is assumed, only a view that shows the assumed
// spec.seedName, or a version no older than the binding, replaces the
// reservation; any other view is older than the binding and ignored. (An
// evicted shoot keeps status.seedName, so "bound somewhere" says nothing about
// the age of a view.) It returns the seeds the shoot stopped counting on
// (capacity freed).
func (c *schedulingCache) upsertShoot(shoot *corev1alpha1.Shoot) (freed []string) {
	key := algorithm.ShootKey(shoot)
	c.mu.Lock()
	defer c.mu.Unlock()
	if a, ok := c.assumed[key]; ok {
		if !c.supersedes(a, key, shoot) {
			return nil
		}
		c.dropAssumption(key)
	}
	return c.place(key, shoot)
}

// place counts the shoot of key as the view shows it (nil: not at all) and
// returns the seeds it stopped counting on. Callers hold the lock.
func (c *schedulingCache) place(key string, view *corev1alpha1.Shoot) (freed []string) {
	before := c.snapshot.CountedOn(key)
	var after []string
	if view == nil {
		c.snapshot.RemoveShootByKey(key)
	} else {
		c.snapshot.AddShoot(view)
		after = algorithm.SeedNamesCountedFor(view)
	}
	for _, s := range before {
		if !slices.Contains(after, s) {
			freed = append(freed, s)
		}
	}
	return freed
}

// supersedes tells whether view makes the assumption a of key unnecessary:
// it shows the assumed seed in spec.seedName, or it is the binding or a later
// version. While the binding is in flight, its version is unknown, and only
// the assumed seed supersedes: a failed binding rolls back by itself. A
// version that cannot be compared with the binding's (not from etcd) is never
// taken as newer. Callers hold the lock.
func (c *schedulingCache) supersedes(a *assumption, key string, view *corev1alpha1.Shoot) bool {
	if view.Spec.SeedName != nil && *view.Spec.SeedName == a.seed {
		return true
	}
	return c.bound.Shows(key, view.ResourceVersion)
}

// removeShoot forgets a deleted shoot; it returns the seeds it counted on.
func (c *schedulingCache) removeShoot(key string) (freed []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dropAssumption(key)
	return c.place(key, nil)
}

// decide chooses a seed for shoot and reserves it: the binding is assumed, so
// the next decision already counts it. The decision reads a fork of the
// snapshot taken under the lock and runs without it, so that neither the
// informers nor other workers wait for it (a tenant's dear shoots must not
// hold everyone's out). The reservation is made under the lock, and only
// if the chosen seed is what the decision read (the same version, the same
// usage); if another reservation or an update changed it meanwhile, the
// shoot is decided again under the lock, as before. That check is what
// keeps concurrent workers from overfilling a seed.
func (c *schedulingCache) decide(shoot *corev1alpha1.Shoot, in algorithm.Inputs) (string, error) {
	key := algorithm.ShootKey(shoot)
	c.mu.Lock()
	if _, ok := c.assumed[key]; ok {
		c.mu.Unlock()
		return "", errAssumed
	}
	view := c.snapshot.Fork()
	c.mu.Unlock()
	seed, err := algorithm.Schedule(shoot, view, in)
	if err != nil {
		return "", err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.assumed[key]; ok {
		return "", errAssumed
	}
	if !unchangedSeed(view, c.snapshot, seed) {
		if seed, err = algorithm.Schedule(shoot, c.snapshot, in); err != nil {
			return "", err
		}
	}
	// The snapshot keeps only where the shoot counts, so a shallow copy with
	// the chosen seed is enough to reserve it.
	reserved := *shoot
	reserved.Spec.SeedName = &seed
	c.snapshot.AddShoot(&reserved)
	a := &assumption{seed: seed}
	if info, ok := c.snapshot.Seed(seed); ok {
		a.seedRV = info.ResourceVersion
	}
	c.assumed[key] = a
	return seed, nil
}

// unchangedSeed tells whether the named seed is in now as the decision read
// it in view: the same object and the same usage.
func unchangedSeed(view, now *algorithm.Snapshot, name string) bool {
	was, ok := view.Seed(name)
	is, still := now.Seed(name)
	return ok && still && was == is && view.Usage(name) == now.Usage(name)
}

// decidedOnSeedVersion returns the resourceVersion of the seed the shoot's
// pending decision chose, as the decision read it; empty without a decision.
// The cache may hold a newer one by now: the seed informer keeps updating it
// between the decision and the binding.
func (c *schedulingCache) decidedOnSeedVersion(key string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if a, ok := c.assumed[key]; ok {
		return a.seedRV
	}
	return ""
}

// bindSucceeded marks the assumption as written by the binding of
// resourceVersion boundRV; it may expire from now on.
func (c *schedulingCache) bindSucceeded(key, boundRV string, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if a, ok := c.assumed[key]; ok {
		a.bindDone = true
		a.doneAt = now
		c.bound.Wrote(key, &metav1.ObjectMeta{ResourceVersion: boundRV})
	}
}

// bindFailed rolls the assumption back to the informer's view (current, nil
// when the shoot is gone); it returns the seeds the reservation freed.
func (c *schedulingCache) bindFailed(key string, current *corev1alpha1.Shoot) (freed []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.assumed[key]; !ok {
		return nil
	}
	c.dropAssumption(key)
	return c.place(key, current)
}

// expire drops assumptions written more than ttl ago once the informer's
// view (current, nil when the shoot is gone) has reached the binding,
// falling back to that view. A lagging informer that still
// shows the old version keeps the reservation however long it lags: dropping
// it would count the shoot as unbound (or on the seed it was evicted from)
// and free the chosen seed's slot for a second shoot. Only when the versions
// cannot be compared does the TTL alone decide. It returns the keys expired
// and the seeds that freed.
func (c *schedulingCache) expire(now time.Time, ttl time.Duration, current func(key string) *corev1alpha1.Shoot) (expired, freed []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for key, a := range c.assumed {
		if !a.bindDone || now.Sub(a.doneAt) < ttl {
			continue
		}
		shoot := current(key)
		if shoot != nil && !c.supersedes(a, key, shoot) && c.bound.Observe(key, shoot.ResourceVersion) {
			continue // the view is older than the binding
		}
		c.dropAssumption(key)
		freed = append(freed, c.place(key, shoot)...)
		expired = append(expired, key)
	}
	return expired, freed
}

// usage returns the shoots counted on a seed, assumed bindings included.
func (c *schedulingCache) usage(seed string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.snapshot.Usage(seed)
}

// numAssumed returns how many bindings are assumed.
func (c *schedulingCache) numAssumed() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.assumed)
}
