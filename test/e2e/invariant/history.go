package invariant

import (
	"fmt"
	"sync"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/algorithm"
)

// History follows every shoot's spec.seedName through a watch (feed it each
// event's object, in order) and reports shoots bound twice: spec.seedName
// changing from one seed straight to another, which only a second binding of
// a stale decision would do. A move through an eviction clears it first.
//
// A watch can miss events: after an API server restart its watch cache
// starts afresh and refuses to resume an older watch, and the watcher must
// list again. Resync records the listed state without judging what happened
// in between; Gaps counts such resyncs, after which Binds and Evictions may
// fall short (a shoot's metadata.generation counts its spec changes exactly).
type History struct {
	mu         sync.Mutex
	seed       map[string]string
	binds      map[string]int
	evictions  map[string]int
	violations []Violation
	gaps       int
}

// NewHistory returns an empty History.
func NewHistory() *History {
	return &History{seed: map[string]string{}, binds: map[string]int{}, evictions: map[string]int{}}
}

// Observe records a shoot as seen in a watch event (ADDED or MODIFIED).
func (h *History) Observe(shoot *corev1alpha1.Shoot) {
	key := algorithm.ShootKey(shoot)
	cur := ptrValue(shoot.Spec.SeedName)
	h.mu.Lock()
	defer h.mu.Unlock()
	last, seen := h.seed[key]
	h.seed[key] = cur
	switch {
	case seen && cur == last:
	case cur == "":
		if seen {
			h.evictions[key]++
		}
	case !seen && shoot.Generation > 1:
		// First seen already bound after changes we did not watch: nothing to
		// compare with, so nothing to count.
	default:
		h.binds[key]++
		if last != "" {
			h.violations = append(h.violations, Violation{Rule: RuleBoundOnce, Shoot: key, Seed: cur,
				Message: fmt.Sprintf("moved from seed %s to %s without being evicted first", last, cur)})
		}
	}
}

// Resync records a shoot as listed after the watch had to start again.
func (h *History) Resync(shoot *corev1alpha1.Shoot) {
	key := algorithm.ShootKey(shoot)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.seed[key] = ptrValue(shoot.Spec.SeedName)
}

// Gap records that the watch had to list again.
func (h *History) Gap() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.gaps++
}

// Gaps returns how many times the watch had to list again.
func (h *History) Gaps() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.gaps
}

func ptrValue(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// Forget drops a deleted shoot, so that a new shoot of the same name starts afresh.
func (h *History) Forget(shoot *corev1alpha1.Shoot) {
	key := algorithm.ShootKey(shoot)
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.seed, key)
	delete(h.binds, key)
	delete(h.evictions, key)
}

// Binds returns how many times the shoot (namespace/name) was bound.
func (h *History) Binds(key string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.binds[key]
}

// Evictions returns how many times the shoot's spec.seedName was cleared.
func (h *History) Evictions(key string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.evictions[key]
}

// Violations returns every RuleBoundOnce violation seen so far.
func (h *History) Violations() []Violation {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Violation(nil), h.violations...)
}
