package gardenerlandscape

import (
	"context"
	"fmt"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
	"k8s.io/client-go/util/retry"
)

// GardenletStandIn stands in for gardenlet's part of placing and moving a
// control plane, which no gardenlet runs here to carry out: a while after a
// shoot's spec.seedName changed away from its status.seedName, it reports
// the control plane running on the new seed (status.seedName), as gardenlet
// does once a migration is done, with the last operation gardenlet then
// reports (Restore, or LiveMigrate with RunsLive); with ReportNew, it does the same for a
// shoot bound for the first time (no status.seedName yet).
type GardenletStandIn struct {
	Dynamic dynamic.Interface
	// Delay is how long a move takes.
	Delay time.Duration
	// ReportNew also reports a newly bound shoot running on its seed.
	ReportNew bool
	// RunsLive makes the stand-in a gardenlet with GEP-39's live flow: a
	// move asked to be live (migration.gardener.cloud/live-migrate "true")
	// reports the last operation LiveMigrate. Without it, as gardenlet
	// v1.150.0 does, every move ends in the classic Restore.
	RunsLive bool
	// Hold, if set, leaves the shoots it names in flight.
	Hold func(namespace, name string) bool
	// Observe, if set, is called with every state of every shoot the
	// stand-in sees, in order: first each shoot of the initial list (as
	// Added), then every change.
	Observe func(event watch.EventType, shoot *unstructured.Unstructured)

	mu     sync.Mutex
	moving map[string]string
}

// Start lists every shoot, then follows every change until ctx ends; it
// returns once the first list is read. The watch is retried from the last
// version seen (gardener-apiserver's watch cache may answer a watch that is
// ahead of it with a timeout); when that version is gone (an API server
// restart), it lists again. Errors of its status writes end nothing: the
// write is tried again after another delay.
func (g *GardenletStandIn) Start(ctx context.Context) error {
	g.mu.Lock()
	g.moving = map[string]string{}
	g.mu.Unlock()
	rv, err := g.list(ctx)
	if err != nil {
		return err
	}
	go func() {
		for ctx.Err() == nil {
			if rv != "" {
				g.follow(ctx, rv)
			}
			if ctx.Err() != nil {
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Second):
			}
			rv, _ = g.list(ctx)
		}
	}()
	return nil
}

// list observes every shoot and returns the list's resourceVersion.
func (g *GardenletStandIn) list(ctx context.Context) (string, error) {
	list, err := g.Dynamic.Resource(Shoots).Namespace(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return "", fmt.Errorf("listing shoots: %w", err)
	}
	for i := range list.Items {
		g.observe(ctx, watch.Added, &list.Items[i])
	}
	return list.GetResourceVersion(), nil
}

// follow observes every change after resourceVersion rv until the watch
// cannot go on or ctx ends.
func (g *GardenletStandIn) follow(ctx context.Context, rv string) {
	client := g.Dynamic.Resource(Shoots).Namespace(metav1.NamespaceAll)
	w, err := watchtools.NewRetryWatcherWithContext(ctx, rv, &cache.ListWatch{
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			return client.Watch(ctx, opts)
		},
	})
	if err != nil {
		return
	}
	defer w.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, open := <-w.ResultChan():
			if !open || ev.Type == watch.Error {
				return
			}
			if shoot, ok := ev.Object.(*unstructured.Unstructured); ok {
				g.observe(ctx, ev.Type, shoot)
			}
		}
	}
}

// observe hands a shoot's state to Observe and, when its control plane is to
// be reported on a new seed, does so after the delay (once per move).
func (g *GardenletStandIn) observe(ctx context.Context, event watch.EventType, shoot *unstructured.Unstructured) {
	if g.Observe != nil {
		g.Observe(event, shoot)
	}
	spec, _, _ := unstructured.NestedString(shoot.Object, "spec", "seedName")
	status, _, _ := unstructured.NestedString(shoot.Object, "status", "seedName")
	key := shoot.GetNamespace() + "/" + shoot.GetName()
	due := event != watch.Deleted && spec != "" && spec != status && (status != "" || g.ReportNew) &&
		(g.Hold == nil || !g.Hold(shoot.GetNamespace(), shoot.GetName()))
	g.mu.Lock()
	started := due && g.moving[key] != spec
	if started {
		g.moving[key] = spec
	} else if !due {
		delete(g.moving, key)
	}
	g.mu.Unlock()
	if started {
		go g.finish(ctx, shoot.GetNamespace(), shoot.GetName(), spec)
	}
}

// finish reports, after the delay, the shoot's control plane running on seed,
// unless the shoot was bound elsewhere in between.
func (g *GardenletStandIn) finish(ctx context.Context, namespace, name, seed string) {
	defer func() {
		g.mu.Lock()
		if g.moving[namespace+"/"+name] == seed {
			delete(g.moving, namespace+"/"+name)
		}
		g.mu.Unlock()
	}()
	client := g.Dynamic.Resource(Shoots).Namespace(namespace)
	// A write that fails (the API server restarting) is tried again after
	// another delay, as gardenlet would.
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(g.Delay):
		}
		if err := g.report(ctx, client, name, seed); err == nil || apierrors.IsNotFound(err) {
			return
		}
	}
}

// report writes status.seedName of the named shoot, if it is still bound to
// seed.
func (g *GardenletStandIn) report(ctx context.Context, client dynamic.ResourceInterface, name, seed string) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		now, err := client.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if s, _, _ := unstructured.NestedString(now.Object, "spec", "seedName"); s != seed {
			return nil
		}
		op, desc := "Restore", "control plane restored on seed "+seed
		if from, _, _ := unstructured.NestedString(now.Object, "status", "seedName"); from == "" {
			op, desc = "Create", "control plane created on seed "+seed
		}
		if err := unstructured.SetNestedField(now.Object, seed, "status", "seedName"); err != nil {
			return err
		}
		if g.RunsLive && now.GetAnnotations()["migration.gardener.cloud/live-migrate"] == "true" {
			op, desc = "LiveMigrate", "control plane migrated live to seed "+seed
		}
		last := map[string]any{"type": op, "state": "Succeeded", "progress": int64(100), "description": desc,
			"lastUpdateTime": time.Now().UTC().Format(time.RFC3339)}
		if err := unstructured.SetNestedMap(now.Object, last, "status", "lastOperation"); err != nil {
			return err
		}
		_, err = client.UpdateStatus(ctx, now, metav1.UpdateOptions{})
		return err
	})
}
