package ownwrites

import (
	"sync"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/resourceversion"
)

// Object is what a tracked object tells: its version and identity.
type Object interface {
	comparable
	GetResourceVersion() string
	GetUID() types.UID
}

// Tracker remembers a daemon's own writes by object key. It is safe for
// concurrent use.
type Tracker[T Object] struct {
	mu      sync.Mutex
	written map[string]T
}

// New returns an empty tracker.
func New[T Object]() *Tracker[T] {
	return &Tracker[T]{written: map[string]T{}}
}

// Wrote records obj, the object the API server returned for a write of key.
// It returns false, recording nothing, when a later write of key is
// recorded already (answers of concurrent writes can arrive out of order).
func (t *Tracker[T]) Wrote(key string, obj T) bool {
	rv := obj.GetResourceVersion()
	if !orderable(rv, rv) {
		return true
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if w, ok := t.written[key]; ok && older(rv, w.GetResourceVersion()) {
		return false
	}
	t.written[key] = obj
	return true
}

// Observe takes the informer's view of key at resourceVersion rv. It returns
// true when the view is older than the last own write, which the caller
// ignores; a view at or past the write ends the tracking of key.
func (t *Tracker[T]) Observe(key, rv string) (stale bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	w, ok := t.written[key]
	if !ok || !orderable(rv, w.GetResourceVersion()) {
		return false
	}
	if older(rv, w.GetResourceVersion()) {
		return true
	}
	delete(t.written, key)
	return false
}

// Shows tells whether a view at rv shows key's last own write or a later
// version, without ending the tracking; false when none is recorded or the
// versions cannot be ordered.
func (t *Tracker[T]) Shows(key, rv string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	w, ok := t.written[key]
	return ok && orderable(rv, w.GetResourceVersion()) && !older(rv, w.GetResourceVersion())
}

// Freshest returns the newer of cached, the informer's copy of key, and the
// object the last own write returned. Once the cache has caught up (or the
// object was recreated), the written copy is forgotten.
func (t *Tracker[T]) Freshest(key string, cached T) T {
	t.mu.Lock()
	defer t.mu.Unlock()
	w, ok := t.written[key]
	if !ok {
		return cached
	}
	if w.GetUID() == cached.GetUID() && older(cached.GetResourceVersion(), w.GetResourceVersion()) {
		return w
	}
	delete(t.written, key)
	return cached
}

// Written returns the object the last own write of key returned, while the
// informer has not shown it.
func (t *Tracker[T]) Written(key string) (T, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	w, ok := t.written[key]
	return w, ok
}

// Forget ends the tracking of key: the object is gone, or the write failed
// in a way that leaves no version to wait for.
func (t *Tracker[T]) Forget(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.written, key)
}

// Len returns how many objects have writes the informer has not shown.
func (t *Tracker[T]) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.written)
}

// older tells whether resourceVersion a is older than b; false when they
// cannot be ordered.
func older(a, b string) bool {
	cmp, err := resourceversion.CompareResourceVersion(a, b)
	return err == nil && cmp < 0
}

func orderable(a, b string) bool {
	_, err := resourceversion.CompareResourceVersion(a, b)
	return err == nil
}
