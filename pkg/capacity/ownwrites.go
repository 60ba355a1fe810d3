package capacity

import (
	"slices"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/resourceversion"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

// The controller keeps, per seed, what the API server returned for its last
// write until the informer shows it, so that a sync in between neither writes
// the same status again nor sends a stale taint patch (docs/daemons.md, "The
// annotator's own writes").

// echo is a write of the annotator whose watch event has not arrived yet.
type echo struct {
	// base is the resourceVersion of the seed the write applies to, want
	// that seed with the write applied.
	base string
	want *v1alpha1.Seed
	// version is the write's resourceVersion once the API server answered.
	version string
}

// expect registers a write about to be sent: want is base with the write
// applied. It is registered before the write is sent because its watch
// event may arrive before the answer does.
func (c *controller) expect(base, want *v1alpha1.Seed) *echo {
	e := &echo{base: base.ResourceVersion, want: want}
	c.mu.Lock()
	defer c.mu.Unlock()
	if st, ok := c.seeds[base.Name]; ok {
		st.echoes = append(st.echoes, e)
	}
	return e
}

// wrote records the answer to the write e: the seed the API server returned,
// or the error that makes the write's event never come.
func (c *controller) wrote(e *echo, written *v1alpha1.Seed, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	st, ok := c.seeds[e.want.Name]
	if !ok {
		return // deleted meanwhile
	}
	if err != nil || written == nil {
		st.echoes = slices.DeleteFunc(st.echoes, func(o *echo) bool { return o == e })
		return
	}
	e.version = written.ResourceVersion
	c.written.Wrote(written.Name, written)
}

// freshest returns the newer of the cached seed and the seed the
// annotator's last write returned (ownwrites.Tracker.Freshest), and drops
// the writes the cache has moved past (their events, if they never come,
// are not waited for).
func (c *controller) freshest(cached *v1alpha1.Seed) *v1alpha1.Seed {
	c.mu.Lock()
	defer c.mu.Unlock()
	st, ok := c.seeds[cached.Name]
	if !ok {
		return cached
	}
	st.echoes = slices.DeleteFunc(st.echoes, func(e *echo) bool {
		return e.version != "" && newer(cached.ResourceVersion, e.version)
	})
	return c.written.Freshest(cached.Name, cached)
}

// ownEcho tells whether a watch event from old to cur is exactly one of the
// annotator's own writes, and forgets that write. Such an event needs no
// sync: the write is what the annotator decided, on the seed the event
// starts from. An event that starts from another version (another writer's
// change came in between) or brings more than the write (a relist folding
// several changes into one) is not one.
func (c *controller) ownEcho(old, cur *v1alpha1.Seed) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	st, ok := c.seeds[cur.Name]
	if !ok {
		return false
	}
	i := slices.IndexFunc(st.echoes, func(e *echo) bool {
		return e.base == old.ResourceVersion && sameSeed(e.want, cur)
	})
	if i < 0 {
		return false
	}
	st.echoes = slices.Delete(st.echoes, i, i+1)
	c.written.Observe(cur.Name, cur.ResourceVersion) // the cache holds it now
	return true
}

// sameSeed tells whether a and b are the same seed with the same labels,
// annotations, spec and status: what a write changes besides (the
// resourceVersion, generation and managedFields every write changes; the
// type meta, which a decoded response has and a cached object not).
func sameSeed(a, b *v1alpha1.Seed) bool {
	a, b = a.DeepCopy(), b.DeepCopy()
	for _, s := range []*v1alpha1.Seed{a, b} {
		s.TypeMeta = metav1.TypeMeta{}
		s.ResourceVersion, s.Generation, s.ManagedFields = "", 0, nil
	}
	return equality.Semantic.DeepEqual(a, b)
}

// newer tells whether resourceVersion a is newer than b; false when they
// cannot be compared.
func newer(a, b string) bool {
	cmp, err := resourceversion.CompareResourceVersion(a, b)
	return err == nil && cmp > 0
}
