package main

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/test/integration/descheduler/fixture"
	"github.com/graft-dev/graft/test/perf/writes"
)

// The landscape: fixture's, named "scale" (its namespace, region and seed
// prefix), with the pending shoots in a namespace of their own so that the
// benchmark can follow them without caching every shoot.
const (
	landscapeName = "scale"
	pendingNS     = "scale-pending"
	// chunk is how many shoots are created between two progress lines.
	chunk = 10000
)

// seedShort is the short (fixture) name of seed i; seed 0 is the one drained.
func seedShort(i int) string { return fmt.Sprintf("s%04d", i) }

// allocatable is every seed's status.allocatable.shoots: room for the
// drained seed's shoots, and twice the mean number of shoots per seed, so
// that the pending shoots and the drained seed's shoots fit elsewhere.
func (o options) allocatable() int64 {
	perSeed := (o.shoots + o.seeds - 1) / o.seeds
	return int64(max(o.drain, 2*perSeed))
}

// createSeeds creates the seeds, ready (GardenletReady, a succeeded
// lastOperation, as gardenlet reports them) with status.allocatable set and
// nothing of what graft-capacity-annotator writes.
func createSeeds(ctx context.Context, l *fixture.Landscape, o options) error {
	start := time.Now()
	err := writes.Parallel(o.seeds, o.workers, func(i int) error {
		_, err := l.Seed(ctx, seedShort(i), o.allocatable())
		return err
	})
	if err != nil {
		return err
	}
	fmt.Printf("created %d seeds (allocatable %d shoots each) in %v\n", o.seeds, o.allocatable(), time.Since(start).Round(time.Millisecond))
	return nil
}

// createShoots creates the shoots: the first `drain` bound to seed 0, the
// other bound ones spread round robin over the other seeds, then `pending`
// without a seed in pendingNS. A shoot is created with everything graft
// would find on it in a running garden (spec.seedName for the bound ones);
// no daemon writes a bound shoot's status, so none is set.
func createShoots(ctx context.Context, l *fixture.Landscape, o options) error {
	bound := o.shoots - o.pending
	newShoot := func(j int) *v1alpha1.Shoot {
		if j >= bound {
			s := l.NewShoot(fmt.Sprintf("pending-%06d", j-bound), "")
			s.Namespace = pendingNS
			return s
		}
		seed := 0
		if j >= o.drain {
			seed = 1 + (j-o.drain)%(o.seeds-1)
		}
		return l.NewShoot(fmt.Sprintf("shoot-%06d", j), seedShort(seed))
	}
	start := time.Now()
	for from := 0; from < o.shoots; from += chunk {
		to := min(from+chunk, o.shoots)
		list := make([]*v1alpha1.Shoot, 0, to-from)
		for j := from; j < to; j++ {
			list = append(list, newShoot(j))
		}
		if err := l.CreateShoots(ctx, list, o.workers); err != nil {
			return err
		}
		el := time.Since(start)
		fmt.Printf("created %d/%d shoots in %v (%.0f/s)\n", to, o.shoots, el.Round(time.Second), float64(to)/el.Seconds())
	}
	return nil
}

// usageBySeed counts the shoots on each seed (spec.seedName), reading them
// in pages.
func usageBySeed(ctx context.Context, l *fixture.Landscape) (map[string]int64, error) {
	usage := map[string]int64{}
	opts := metav1.ListOptions{Limit: 5000}
	for {
		list, err := l.Graft.CoreV1alpha1().Shoots(metav1.NamespaceAll).List(ctx, opts)
		if err != nil {
			return nil, err
		}
		for i := range list.Items {
			if seed := fixture.Of(&list.Items[i]); seed != "" {
				usage[seed]++
			}
		}
		if list.Continue == "" {
			return usage, nil
		}
		opts.Continue = list.Continue
	}
}

// shootsOf returns a resource list's shoots, and whether it has them.
func shootsOf(l corev1.ResourceList) (int64, bool) {
	q, ok := l[v1alpha1.ResourceShoots]
	return q.Value(), ok
}
