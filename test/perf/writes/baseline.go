package writes

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	versioned "github.com/graft-dev/client-go/clientset/versioned"
	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

// SchedulerName keeps the baseline's shoots away from graft-scheduler.
const SchedulerName = "bench-baseline"

// replayOrder is the order in which one shoot's writes are made, that of a
// move: the seed's (a drain's taint bookkeeping), eviction, its
// lastOperation, binding, lastOperation again, Events. Writes of any other
// kind cannot be replayed; Plan refuses them.
var replayOrder = []Kind{
	{"patch", "seeds"},
	{"update", "shoots"},
	{"update", "shoots/status"},
	{"patch", "shoots"},
	{"patch", "shoots/status"},
	{"patch", "shoots/binding"},
	{"create", "events"},
	{"patch", "events"},
	{"update", "events"},
}

// Plan spreads counts over n shoots as evenly as it can: the returned lists,
// one per shoot in replay order, hold every write of counts exactly once.
func Plan(counts Counts, n int) ([][]Kind, error) {
	rest := Counts{}
	for k, v := range counts {
		rest[k] = v
	}
	plan := make([][]Kind, n)
	for _, k := range replayOrder {
		c := rest[k]
		delete(rest, k)
		if c == 0 {
			continue
		}
		if n == 0 {
			return nil, fmt.Errorf("%d writes of %s but no shoot to make them on", c, k)
		}
		for i := range n {
			for range (i+1)*c/n - i*c/n {
				plan[i] = append(plan[i], k)
			}
		}
	}
	if rest.Total() > 0 {
		return nil, fmt.Errorf("the baseline cannot make writes of these kinds: %s", rest)
	}
	return plan, nil
}

// Baseline makes given writes on its own shoots with a fixed number of
// writers, each writer making one shoot's writes in series, the way a plain
// loop would: the API server's ceiling for the same writes.
type Baseline struct {
	Graft versioned.Interface
	Kube  kubernetes.Interface
	// Gardener makes the bindings of Gardener's API (patch shoots/binding).
	Gardener dynamic.Interface
	// Seeds are the seed names bindings choose from (two at least, so that a
	// binding always changes the shoot); seed patches go to the first.
	Seeds   []string
	Writers int
	// Counter, when set, counts the baseline's writes: Run starts its
	// window with the clock.
	Counter *Counter

	seq atomic.Int64
}

// Run makes plan[i]'s writes on shoots[i] and returns the time from the
// first write to the last acknowledgement. The Events that Event patches
// and updates count up are created before the clock starts.
func (b *Baseline) Run(ctx context.Context, shoots []*v1alpha1.Shoot, plan [][]Kind) (time.Duration, error) {
	if len(plan) != len(shoots) {
		return 0, fmt.Errorf("a plan for %d shoots, %d shoots", len(plan), len(shoots))
	}
	targets := map[string]*corev1.Event{}
	for i, kinds := range plan {
		for _, k := range kinds {
			ns := shoots[i].Namespace
			if k.Resource != "events" || k.Verb == "create" || targets[ns] != nil {
				continue
			}
			e, err := b.Kube.CoreV1().Events(ns).Create(ctx, b.event(shoots[i], "counted up by the baseline"), metav1.CreateOptions{})
			if err != nil {
				return 0, fmt.Errorf("creating the Event the baseline counts up: %w", err)
			}
			targets[ns] = e
		}
	}
	if b.Counter != nil {
		b.Counter.Reset()
	}
	start := time.Now()
	err := Parallel(len(shoots), b.Writers, func(i int) error { return b.replay(ctx, shoots[i], plan[i], targets) })
	return time.Since(start), err
}

func (b *Baseline) event(shoot *v1alpha1.Shoot, message string) *corev1.Event {
	now := metav1.Now()
	return &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{Namespace: shoot.Namespace, Name: fmt.Sprintf("%s.%x", shoot.Name, b.seq.Add(1))},
		InvolvedObject: corev1.ObjectReference{
			APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: "Shoot", Namespace: shoot.Namespace, Name: shoot.Name,
			UID: shoot.UID, ResourceVersion: shoot.ResourceVersion,
		},
		Reason: "Baseline", Message: message, Type: corev1.EventTypeNormal,
		Source: corev1.EventSource{Component: SchedulerName}, FirstTimestamp: now, LastTimestamp: now, Count: 1,
	}
}

// seedFor returns a seed other than the shoot's.
func (b *Baseline) seedFor(shoot *v1alpha1.Shoot) string {
	seed := b.Seeds[int(b.seq.Add(1))%len(b.Seeds)]
	if shoot.Spec.SeedName != nil && *shoot.Spec.SeedName == seed {
		seed = b.Seeds[(slices.Index(b.Seeds, seed)+1)%len(b.Seeds)]
	}
	return seed
}

// replay makes one shoot's writes in series. Every write changes the object,
// so that none is a no-op the API server would not store.
func (b *Baseline) replay(ctx context.Context, shoot *v1alpha1.Shoot, kinds []Kind, targets map[string]*corev1.Event) error {
	shoots := b.Graft.CoreV1alpha1().Shoots(shoot.Namespace)
	events := b.Kube.CoreV1().Events(shoot.Namespace)
	cur := shoot
	for _, k := range kinds {
		var err error
		switch k {
		case Kind{"patch", "seeds"}:
			patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]any{
				"bench.graft.dev/baseline-write": fmt.Sprint(b.seq.Add(1)),
			}}})
			_, err = b.Graft.CoreV1alpha1().Seeds().Patch(ctx, b.Seeds[0], types.MergePatchType, patch, metav1.PatchOptions{})
		case Kind{"update", "shoots"}:
			// An eviction when bound, a binding when not.
			next := cur.DeepCopy()
			if next.Spec.SeedName != nil {
				if next.Annotations == nil {
					next.Annotations = map[string]string{}
				}
				next.Annotations[v1alpha1.AnnotationDescheduledFrom] = *next.Spec.SeedName
				next.Annotations[v1alpha1.AnnotationDescheduledReason] = "evicted by the baseline"
				next.Spec.SeedName = nil
			} else {
				next.Spec.SeedName = ptr.To(b.seedFor(cur))
			}
			cur, err = shoots.Update(ctx, next, metav1.UpdateOptions{})
		case Kind{"update", "shoots/status"}:
			next := cur.DeepCopy()
			next.Status.LastOperation = &v1alpha1.LastOperation{
				Type: v1alpha1.LastOperationTypeMigrate, State: v1alpha1.LastOperationStatePending,
				Description: fmt.Sprintf("baseline write %d", b.seq.Add(1)), LastUpdateTime: metav1.Now(),
			}
			cur, err = shoots.UpdateStatus(ctx, next, metav1.UpdateOptions{})
		case Kind{"patch", "shoots"}:
			// An eviction when bound, a binding when not, as graft's
			// daemons patch.
			metadata := map[string]any{"resourceVersion": cur.ResourceVersion}
			var seed any = b.seedFor(cur)
			if cur.Spec.SeedName != nil {
				metadata["annotations"] = map[string]any{
					v1alpha1.AnnotationDescheduledFrom:   *cur.Spec.SeedName,
					v1alpha1.AnnotationDescheduledReason: "evicted by the baseline",
				}
				seed = nil
			}
			patch, _ := json.Marshal(map[string]any{"metadata": metadata, "spec": map[string]any{"seedName": seed}})
			cur, err = shoots.Patch(ctx, cur.Name, types.MergePatchType, patch, metav1.PatchOptions{})
		case Kind{"patch", "shoots/status"}:
			// Clears lastOperation when set, sets it otherwise.
			var lastOperation any
			if cur.Status.LastOperation == nil {
				lastOperation = v1alpha1.LastOperation{
					Type: v1alpha1.LastOperationTypeCreate, State: v1alpha1.LastOperationStatePending,
					Description: fmt.Sprintf("baseline write %d", b.seq.Add(1)), LastUpdateTime: metav1.Now(),
				}
			}
			patch, _ := json.Marshal(map[string]any{
				"metadata": map[string]any{"resourceVersion": cur.ResourceVersion},
				"status":   map[string]any{"lastOperation": lastOperation},
			})
			cur, err = shoots.Patch(ctx, cur.Name, types.MergePatchType, patch, metav1.PatchOptions{}, "status")
		case Kind{"patch", "shoots/binding"}:
			// A binding through Gardener's subresource, as graft-scheduler
			// sends it, at the version created: nothing else writes the
			// baseline's shoots.
			patch, _ := json.Marshal(map[string]any{
				"metadata": map[string]any{"resourceVersion": cur.ResourceVersion},
				"spec":     map[string]any{"seedName": b.seedFor(cur)},
			})
			_, err = b.Gardener.Resource(gardenerShoots).Namespace(shoot.Namespace).Patch(ctx, cur.Name, types.MergePatchType, patch, metav1.PatchOptions{}, "binding")
		case Kind{"create", "events"}:
			_, err = events.Create(ctx, b.event(cur, "written by the baseline"), metav1.CreateOptions{})
		case Kind{"patch", "events"}:
			n := b.seq.Add(1)
			patch, _ := json.Marshal(map[string]any{
				"count": n, "lastTimestamp": metav1.Now(), "message": fmt.Sprintf("counted up by the baseline (%d)", n),
			})
			_, err = events.Patch(ctx, targets[shoot.Namespace].Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{})
		case Kind{"update", "events"}:
			e := targets[shoot.Namespace].DeepCopy()
			e.ResourceVersion = ""
			e.Count = int32(b.seq.Add(1))
			e.LastTimestamp = metav1.Now()
			_, err = events.Update(ctx, e, metav1.UpdateOptions{})
		default:
			err = fmt.Errorf("the baseline cannot make a write of %s", k)
		}
		if err != nil {
			return fmt.Errorf("baseline %s of shoot %s/%s: %w", k, shoot.Namespace, shoot.Name, err)
		}
	}
	return nil
}

var gardenerShoots = schema.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "shoots"}

// Parallel runs fn(0..n-1) on workers goroutines and returns the first error.
func Parallel(n, workers int, fn func(i int) error) error {
	var next atomic.Int64
	var firstErr error
	var once sync.Once
	var wg sync.WaitGroup
	for range max(1, workers) {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				if err := fn(i); err != nil {
					once.Do(func() { firstErr = err })
					next.Store(int64(n))
					return
				}
			}
		})
	}
	wg.Wait()
	return firstErr
}
