package leadership

import (
	"context"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

// catchUpPoll is how often the informers are compared with the fresh read.
const catchUpPoll = 50 * time.Millisecond

// Informer is what the catch-up reads of an informer; every
// cache.SharedIndexInformer has it.
type Informer interface {
	HasSynced() bool
	GetStore() cache.Store
	LastSyncResourceVersion() string
}

// tracked is an informer that must reflect a fresh read before the fence
// opens after a gap.
type tracked struct {
	gvr       schema.GroupVersionResource
	namespace string
	selector  string
	informer  Informer
}

// catchUpPageSize is how many objects one request of the fresh read asks
// for. A fresh read of a large resource is served from etcd; in pages each
// request stays short (one unpaged LIST of 100,000 shoots ran into the API
// server's request timeout under load) and the API server never holds the
// whole list at once.
const catchUpPageSize = 1000

// freshRead is what the catch-up keeps of a quorum read of one resource:
// the read's resourceVersion and each object's, by cache key. Only these are
// compared, so nothing else of the objects is kept.
type freshRead struct {
	resourceVersion string
	versions        map[string]string
}

// listFunc reads one resource with a quorum read. It may stop after the
// first page, returning only the read's resourceVersion, when past tells
// that the informer has already synced past it.
type listFunc func(ctx context.Context, r tracked, past func(resourceVersion string) bool) (*freshRead, error)

// metadataLister reads the metadata of a resource in pages of pageSize
// (catchUpPageSize but in tests) from one consistent snapshot (the first page's
// resourceVersion; the continue token keeps it). Should the snapshot be
// compacted away between pages (410 Gone), the read starts over.
func metadataLister(client metadata.Interface, pageSize int64) listFunc {
	return func(ctx context.Context, r tracked, past func(string) bool) (*freshRead, error) {
		read := &freshRead{versions: map[string]string{}}
		opts := metav1.ListOptions{LabelSelector: r.selector, Limit: pageSize}
		for {
			// resourceVersion "" (the default) asks etcd, not the watch
			// cache; later pages continue the first one's snapshot.
			page, err := client.Resource(r.gvr).Namespace(r.namespace).List(ctx, opts)
			if apierrors.IsResourceExpired(err) && opts.Continue != "" {
				read, opts.Continue = &freshRead{versions: map[string]string{}}, ""
				continue
			}
			if err != nil {
				return nil, err
			}
			if opts.Continue == "" {
				read.resourceVersion = page.ResourceVersion
				if past(read.resourceVersion) {
					read.versions = nil
					return read, nil
				}
			}
			for i := range page.Items {
				key, err := cache.MetaNamespaceKeyFunc(&page.Items[i])
				if err != nil {
					return nil, err
				}
				read.versions[key] = page.Items[i].ResourceVersion
			}
			if page.Continue == "" {
				return read, nil
			}
			opts.Continue = page.Continue
		}
	}
}

// Track adds an informer whose view must have caught up with a fresh read
// before writes resume after a gap in renewals. gvr, namespace (empty: all)
// and labelSelector must select what the informer watches. Call it before
// the component runs.
func (f *Fence) Track(informer Informer, gvr schema.GroupVersionResource, namespace, labelSelector string) {
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tracked = append(f.tracked, tracked{gvr: gvr, namespace: namespace, selector: labelSelector, informer: informer})
}

// catchUp reads every tracked resource with a quorum read (a LIST with
// resourceVersion "") once its informer has synced, and waits until each
// informer reflects that read; then it opens the fence, unless another gap has begun
// meanwhile (that one runs its own catch-up).
func (f *Fence) catchUp(ctx context.Context, gap uint64, renewed time.Time) {
	logger := klog.FromContext(ctx).WithValues("component", f.component)
	f.mu.Lock()
	resources := append([]tracked(nil), f.tracked...)
	f.mu.Unlock()
	logger.Info("Lease renewed after a gap; writes wait until the informers have caught up", "lastRenewal", renewed, "informers", len(resources))
	start := f.clock.Now()
	reads := make([]*freshRead, len(resources))
	err := wait.PollUntilContextCancel(ctx, catchUpPoll, true, func(ctx context.Context) (bool, error) {
		if f.currentGap() != gap {
			return true, nil
		}
		done := true
		for i, r := range resources {
			if reads[i] == nil {
				// The fresh read waits for the informer's first sync: read
				// beside it, the two compete for the API server (a read of
				// 100,000 shoots costs it seconds of CPU), which delays the
				// sync; read after it, the read is only fresher. An
				// informer stays synced once it has, so the comparison
				// below need not ask again.
				if !r.informer.HasSynced() {
					done = false
					continue
				}
				past := func(rv string) bool { return atLeast(r.informer.LastSyncResourceVersion(), rv) }
				read, err := f.list(ctx, r, past)
				if err != nil {
					logger.V(2).Info("Fresh read for the catch-up failed, retrying", "resource", r.gvr.String(), "err", err)
					return false, nil
				}
				reads[i] = read
			}
			if reads[i].versions == nil && !atLeast(r.informer.LastSyncResourceVersion(), reads[i].resourceVersion) {
				// Read only up to its version because the informer was past
				// it, and now it is not (a relist went back): read again.
				reads[i], done = nil, false
				continue
			}
			if !CaughtUp(reads[i].resourceVersion, reads[i].versions, r.informer.GetStore(), r.informer.LastSyncResourceVersion()) {
				done = false
			}
		}
		return done, nil
	})
	if err != nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.gap != gap {
		return
	}
	f.catchingUp = false
	logger.Info("Informers caught up; writes allowed again", "after", f.clock.Since(start).Round(time.Millisecond))
}

func (f *Fence) currentGap() uint64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.gap
}

// CaughtUp tells whether an informer's store, whose last synced
// resourceVersion is lastSynced, reflects a quorum read at resourceVersion
// that found the objects versions names (cache key to resourceVersion):
// every read object is in the store at its read version or newer, and every
// other stored object was created after the read. An informer that has
// synced past the read's resourceVersion has caught up by definition; the
// object-by-object comparison covers the common case of a resource that did
// not change since, whose informer has no event to advance its version.
// Versions are compared with apimachinery's resourceversion package; a
// version that cannot be compared is never taken as caught up.
func CaughtUp(resourceVersion string, versions map[string]string, store cache.Store, lastSynced string) bool {
	if atLeast(lastSynced, resourceVersion) {
		return true
	}
	for key, version := range versions {
		obj, ok, err := store.GetByKey(key)
		if err != nil || !ok || !atLeast(versionOf(obj), version) {
			return false
		}
	}
	for _, key := range store.ListKeys() {
		if _, read := versions[key]; read {
			continue
		}
		obj, ok, err := store.GetByKey(key)
		if err != nil || !ok {
			continue
		}
		// Deleted before the read and still cached: the informer lags.
		if !atLeast(versionOf(obj), resourceVersion) {
			return false
		}
	}
	return true
}

func versionOf(obj any) string {
	m, err := meta.Accessor(obj)
	if err != nil {
		return ""
	}
	return m.GetResourceVersion()
}

// atLeast tells whether resourceVersion rv is at least base.
func atLeast(rv, base string) bool {
	cmp, err := resourceversion.CompareResourceVersion(rv, base)
	return err == nil && cmp >= 0
}
