package usage

import (
	"slices"
	"sync"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/algorithm"
)

// Counter counts shoots per seed. It is safe for concurrent use.
type Counter struct {
	mu sync.Mutex
	// countedOn is, per shoot key, the seeds the shoot is counted on now.
	countedOn map[string][]string
	// perSeed is the number of shoots counted on each seed; zero counts are
	// deleted so that the map does not grow with seeds that went away.
	perSeed map[string]int
}

// NewCounter returns an empty counter.
func NewCounter() *Counter {
	return &Counter{countedOn: map[string][]string{}, perSeed: map[string]int{}}
}

// Set records shoot as it is now (an add or an update) and returns the seeds
// whose count changed.
func (c *Counter) Set(shoot *v1alpha1.Shoot) []string {
	return c.set(algorithm.ShootKey(shoot), algorithm.SeedNamesCountedFor(shoot))
}

// Delete forgets the shoot with the given namespace/name key and returns the
// seeds whose count changed. Deleting by key works for the tombstones of
// deletes the informer missed, which may not carry the last state.
func (c *Counter) Delete(key string) []string {
	return c.set(key, nil)
}

func (c *Counter) set(key string, seeds []string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.countedOn[key]
	if slices.Equal(old, seeds) {
		return nil
	}
	var changed []string
	for _, s := range old {
		if !slices.Contains(seeds, s) {
			c.add(s, -1)
			changed = append(changed, s)
		}
	}
	for _, s := range seeds {
		if !slices.Contains(old, s) {
			c.add(s, 1)
			changed = append(changed, s)
		}
	}
	if len(seeds) == 0 {
		delete(c.countedOn, key)
	} else {
		c.countedOn[key] = seeds
	}
	return changed
}

func (c *Counter) add(seed string, delta int) {
	n := c.perSeed[seed] + delta
	if n <= 0 {
		delete(c.perSeed, seed)
		return
	}
	c.perSeed[seed] = n
}

// Count returns the number of shoots counted on seed.
func (c *Counter) Count(seed string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.perSeed[seed]
}

// Shoots returns the number of shoots counted on any seed.
func (c *Counter) Shoots() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.countedOn)
}
