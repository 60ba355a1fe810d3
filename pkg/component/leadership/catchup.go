package leadership

import (
	"context"
	"time"

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

// listFunc reads the metadata of one resource with a quorum read.
type listFunc func(ctx context.Context, r tracked) (*metav1.PartialObjectMetadataList, error)

func metadataLister(client metadata.Interface) listFunc {
	return func(ctx context.Context, r tracked) (*metav1.PartialObjectMetadataList, error) {
		// resourceVersion "" (the default) asks etcd, not the watch cache.
		return client.Resource(r.gvr).Namespace(r.namespace).List(ctx, metav1.ListOptions{LabelSelector: r.selector})
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

// catchUp reads every tracked resource from etcd (a LIST with
// resourceVersion "" is a quorum read) and waits until each informer
// reflects that read; then it opens the fence, unless another gap has begun
// meanwhile (that one runs its own catch-up).
func (f *Fence) catchUp(ctx context.Context, gap uint64, renewed time.Time) {
	logger := klog.FromContext(ctx).WithValues("component", f.component)
	f.mu.Lock()
	resources := append([]tracked(nil), f.tracked...)
	f.mu.Unlock()
	logger.Info("Lease renewed after a gap; writes wait until the informers have caught up", "lastRenewal", renewed, "informers", len(resources))
	start := f.clock.Now()
	lists := make([]*metav1.PartialObjectMetadataList, len(resources))
	err := wait.PollUntilContextCancel(ctx, catchUpPoll, true, func(ctx context.Context) (bool, error) {
		if f.currentGap() != gap {
			return true, nil
		}
		done := true
		for i, r := range resources {
			if lists[i] == nil {
				list, err := f.list(ctx, r)
				if err != nil {
					logger.V(2).Info("Fresh read for the catch-up failed, retrying", "resource", r.gvr.String(), "err", err)
					return false, nil
				}
				lists[i] = list
			}
			if !r.informer.HasSynced() || !CaughtUp(lists[i], r.informer.GetStore(), r.informer.LastSyncResourceVersion()) {
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
// resourceVersion is lastSynced, reflects list, a quorum read: every listed
// object is in the store at its listed version or newer, and every other
// stored object was created after the read. An informer that has synced
// past the read's resourceVersion has caught up by definition; the
// object-by-object comparison covers the common case of a resource that did
// not change since, whose informer has no event to advance its version.
// Versions are compared with apimachinery's resourceversion package; a
// version that cannot be compared is never taken as caught up.
func CaughtUp(list *metav1.PartialObjectMetadataList, store cache.Store, lastSynced string) bool {
	if atLeast(lastSynced, list.ResourceVersion) {
		return true
	}
	listed := make(map[string]bool, len(list.Items))
	for i := range list.Items {
		item := &list.Items[i]
		key, err := cache.MetaNamespaceKeyFunc(item)
		if err != nil {
			return false
		}
		listed[key] = true
		obj, ok, err := store.GetByKey(key)
		if err != nil || !ok || !atLeast(versionOf(obj), item.ResourceVersion) {
			return false
		}
	}
	for _, key := range store.ListKeys() {
		if listed[key] {
			continue
		}
		obj, ok, err := store.GetByKey(key)
		if err != nil || !ok {
			continue
		}
		// Deleted before the read and still cached: the informer lags.
		if !atLeast(versionOf(obj), list.ResourceVersion) {
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
