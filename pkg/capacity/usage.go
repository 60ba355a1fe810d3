package capacity

import (
	"sync"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/algorithm"
)

// usageCounter counts shoots per seed with the algorithm's ShootCounter, the count
// the scheduler's snapshot keeps too. It is safe for concurrent use.
type usageCounter struct {
	mu     sync.Mutex
	shoots *algorithm.ShootCounter
}

// newUsageCounter returns an empty counter.
func newUsageCounter() *usageCounter {
	return &usageCounter{shoots: algorithm.NewShootCounter()}
}

// Set records shoot as it is now (an add or an update) and returns the seeds
// whose count changed.
func (c *usageCounter) Set(shoot *v1alpha1.Shoot) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.shoots.Set(shoot)
}

// Delete forgets the shoot with the given namespace/name key and returns the
// seeds whose count changed. Deleting by key works for the tombstones of
// deletes the informer missed, which may not carry the last state.
func (c *usageCounter) Delete(key string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.shoots.Delete(key)
}

// Count returns the number of shoots counted on seed.
func (c *usageCounter) Count(seed string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.shoots.Count(seed)
}
