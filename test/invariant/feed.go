package invariant

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	graftclient "github.com/graft-dev/client-go/clientset/versioned"
	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/garden"
)

// Source is one kind a Feed follows: how to list it, and how to watch it
// from a resourceVersion on.
type Source struct {
	Kind  Kind
	List  func(ctx context.Context) (runtime.Object, error)
	Watch func(ctx context.Context, resourceVersion string) (watch.Interface, error)
}

// Sources returns what a Monitor follows in a garden: every shoot, seed and
// cloud profile, and the region ConfigMaps of the garden namespace (the only
// namespace graft-scheduler reads them from). Watches ask for bookmarks, so
// that a quiet kind still tells how far it has been delivered.
func Sources(graft graftclient.Interface, kube kubernetes.Interface) []Source {
	regionConfigs := metav1.ListOptions{LabelSelector: corev1alpha1.LabelSchedulingPurpose + "=" + corev1alpha1.LabelSchedulingPurposeRegionConfig}
	watchOpts := func(o metav1.ListOptions, rv string) metav1.ListOptions {
		o.ResourceVersion, o.AllowWatchBookmarks = rv, true
		return o
	}
	return []Source{
		{KindShoot,
			func(ctx context.Context) (runtime.Object, error) {
				return graft.CoreV1alpha1().Shoots("").List(ctx, metav1.ListOptions{})
			},
			func(ctx context.Context, rv string) (watch.Interface, error) {
				return graft.CoreV1alpha1().Shoots("").Watch(ctx, watchOpts(metav1.ListOptions{}, rv))
			}},
		{KindSeed,
			func(ctx context.Context) (runtime.Object, error) {
				return graft.CoreV1alpha1().Seeds().List(ctx, metav1.ListOptions{})
			},
			func(ctx context.Context, rv string) (watch.Interface, error) {
				return graft.CoreV1alpha1().Seeds().Watch(ctx, watchOpts(metav1.ListOptions{}, rv))
			}},
		{KindCloudProfile,
			func(ctx context.Context) (runtime.Object, error) {
				return graft.CoreV1alpha1().CloudProfiles().List(ctx, metav1.ListOptions{})
			},
			func(ctx context.Context, rv string) (watch.Interface, error) {
				return graft.CoreV1alpha1().CloudProfiles().Watch(ctx, watchOpts(metav1.ListOptions{}, rv))
			}},
		{KindConfigMap,
			func(ctx context.Context) (runtime.Object, error) {
				return kube.CoreV1().ConfigMaps(corev1alpha1.GardenNamespace).List(ctx, regionConfigs)
			},
			func(ctx context.Context, rv string) (watch.Interface, error) {
				return kube.CoreV1().ConfigMaps(corev1alpha1.GardenNamespace).Watch(ctx, watchOpts(regionConfigs, rv))
			}},
	}
}

// GardenerSources are Sources for a Gardener garden: its shoots, seeds and
// cloud profiles (core.gardener.cloud) read as graft's types, and the region
// ConfigMaps of the garden namespace. client must come from garden.NewDynamic.
func GardenerSources(client garden.Dynamic, kube kubernetes.Interface) ([]Source, error) {
	sources := Sources(nil, kube)
	for i, s := range sources {
		resource := map[Kind]string{KindShoot: "shoots", KindSeed: "seeds", KindCloudProfile: "cloudprofiles"}[s.Kind]
		if resource == "" {
			continue
		}
		lw, err := garden.GardenerListWatch(client, resource)
		if err != nil {
			return nil, err
		}
		sources[i].List = func(ctx context.Context) (runtime.Object, error) {
			return lw.ListWithContext(ctx, metav1.ListOptions{})
		}
		sources[i].Watch = func(ctx context.Context, rv string) (watch.Interface, error) {
			return lw.WatchWithContext(ctx, metav1.ListOptions{ResourceVersion: rv, AllowWatchBookmarks: true})
		}
	}
	return sources, nil
}

// Feed lists and watches Sources and passes everything they deliver to a
// Monitor, in the order delivered. A watch that ends is resumed from the
// last resourceVersion seen; one the API server can no longer resume (its
// resourceVersion expired, as after an API server restart) is a gap: the
// Feed tells the Monitor (Gap) and closes it with a new list (Relist).
type Feed struct {
	Monitor *Monitor
	Sources []Source
	// OnList, when set, is called after the Monitor has recorded a list,
	// with its items and resourceVersion; afterGap tells a list that closes
	// a watch gap.
	OnList func(kind Kind, items []runtime.Object, listRV string, afterGap bool)
	// OnEvent, when set, is called after the Monitor has recorded a watch
	// event ADDED, MODIFIED or DELETED.
	OnEvent func(kind Kind, ev watch.Event)
	// Logf, when set, is told of failed lists while catching up, at most
	// once every ten seconds (while the API server is down they fail every
	// time).
	Logf func(format string, args ...any)

	mu              sync.Mutex
	lastCatchUpFail time.Time
}

// Start lists every source with ctx, then follows each in its own goroutine
// until watchCtx ends.
func (f *Feed) Start(ctx, watchCtx context.Context) error {
	for _, src := range f.Sources {
		rv, err := f.relist(ctx, src, false)
		if err != nil {
			return fmt.Errorf("listing %ss: %w", src.Kind, err)
		}
		go f.follow(watchCtx, src, rv)
	}
	return nil
}

// Relist lists a kind and passes the list on, and returns its
// resourceVersion. A Monitor's view of that kind then reaches at least it.
func (f *Feed) Relist(ctx context.Context, kind Kind) (string, error) {
	for _, src := range f.Sources {
		if src.Kind == kind {
			return f.relist(ctx, src, false)
		}
	}
	return "", fmt.Errorf("no source of %ss", kind)
}

// CatchUp lists the input kinds whose watch has not yet reached a pending
// binding (Monitor.Lagging), then judges what the Monitor can.
func (f *Feed) CatchUp(ctx context.Context) {
	var errs []error
	for _, kind := range f.Monitor.Lagging() {
		if _, err := f.Relist(ctx, kind); err != nil {
			errs = append(errs, fmt.Errorf("listing %ss: %w", kind, err))
		}
	}
	if err := errors.Join(errs...); err != nil && ctx.Err() == nil && f.Logf != nil {
		f.mu.Lock()
		report := time.Since(f.lastCatchUpFail) > 10*time.Second
		if report {
			f.lastCatchUpFail = time.Now()
		}
		f.mu.Unlock()
		if report {
			f.Logf("catching up: %v", err)
		}
	}
	f.Monitor.Judge()
}

func (f *Feed) relist(ctx context.Context, src Source, afterGap bool) (string, error) {
	list, err := src.List(ctx)
	if err != nil {
		return "", err
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return "", err
	}
	acc, err := meta.ListAccessor(list)
	if err != nil {
		return "", err
	}
	f.Monitor.Relist(src.Kind, items, acc.GetResourceVersion())
	if f.OnList != nil {
		f.OnList(src.Kind, items, acc.GetResourceVersion(), afterGap)
	}
	return acc.GetResourceVersion(), nil
}

// follow feeds every change of a source from rv on, until ctx ends.
func (f *Feed) follow(ctx context.Context, src Source, rv string) {
	for ctx.Err() == nil {
		expired := false
		w, err := src.Watch(ctx, rv)
		if err != nil {
			expired = apierrors.IsResourceExpired(err) || apierrors.IsGone(err)
		} else {
			for ev := range w.ResultChan() {
				if ev.Type == watch.Error {
					err := apierrors.FromObject(ev.Object)
					expired = apierrors.IsResourceExpired(err) || apierrors.IsGone(err)
					continue
				}
				acc, err := meta.Accessor(ev.Object)
				if err != nil {
					continue
				}
				rv = acc.GetResourceVersion()
				switch ev.Type {
				case watch.Added, watch.Modified:
					f.Monitor.Observe(ev.Object)
				case watch.Deleted:
					f.Monitor.Delete(ev.Object)
				case watch.Bookmark:
					f.Monitor.Progress(src.Kind, rv)
					continue
				}
				if f.OnEvent != nil {
					f.OnEvent(src.Kind, ev)
				}
			}
			w.Stop()
		}
		if !expired {
			// Not a synchronisation: the pause before a new watch request.
			time.Sleep(200 * time.Millisecond)
			continue
		}
		f.Monitor.Gap(src.Kind)
		for ctx.Err() == nil {
			if rv, err = f.relist(ctx, src, true); err == nil {
				break
			}
			time.Sleep(time.Second)
		}
	}
}
