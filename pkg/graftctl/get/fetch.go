package get

import (
	"context"
	"fmt"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"

	"github.com/graft-dev/graft/pkg/algorithm"
	"github.com/graft-dev/graft/pkg/garden"
)

func (o *Options) getSeeds(ctx context.Context) ([]corev1alpha1.Seed, error) {
	if len(o.names) > 0 {
		items := make([]corev1alpha1.Seed, 0, len(o.names))
		for _, name := range o.names {
			seed, err := o.client.GetSeed(ctx, name)
			if err != nil {
				return nil, err
			}
			items = append(items, *seed)
		}
		return items, nil
	}
	items, err := o.client.ListSeeds(ctx, metav1.ListOptions{LabelSelector: o.Selector})
	if err != nil {
		return nil, err
	}
	sort.Slice(items, func(i, j int) bool { return items[i].Name < items[j].Name })
	return items, nil
}

func (o *Options) getShoots(ctx context.Context) ([]corev1alpha1.Shoot, error) {
	namespace := o.namespace
	if o.AllNamespaces {
		namespace = metav1.NamespaceAll
	}
	if len(o.names) > 0 {
		items := make([]corev1alpha1.Shoot, 0, len(o.names))
		for _, name := range o.names {
			shoot, err := o.client.GetShoot(ctx, o.namespace, name)
			if err != nil {
				return nil, err
			}
			items = append(items, *shoot)
		}
		return items, nil
	}
	items, err := o.client.ListShoots(ctx, namespace, metav1.ListOptions{LabelSelector: o.Selector})
	if err != nil {
		return nil, err
	}
	sort.Slice(items, func(i, j int) bool {
		a, b := items[i], items[j]
		if a.Namespace != b.Namespace {
			return a.Namespace < b.Namespace
		}
		return a.Name < b.Name
	})
	return items, nil
}

// shootCounts counts the shoots on each seed for seeds whose status carries no
// usage yet, with the counter the scheduler and the capacity annotator use.
// Without permission to list shoots it returns nil and the column shows "-".
func (o *Options) shootCounts(ctx context.Context, items []corev1alpha1.Seed) map[string]int {
	needed := false
	for i := range items {
		if _, ok := items[i].Status.Usage[corev1alpha1.ResourceShoots]; !ok {
			needed = true
			break
		}
	}
	if !needed {
		return nil
	}
	shoots, err := o.client.ListShoots(ctx, metav1.NamespaceAll, metav1.ListOptions{ResourceVersion: "0"})
	if err != nil {
		return nil
	}
	counter := algorithm.NewShootCounter()
	for i := range shoots {
		counter.Set(&shoots[i])
	}
	counts := make(map[string]int, len(items))
	for i := range items {
		counts[items[i].Name] = counter.Count(items[i].Name)
	}
	return counts
}

// seedConfigs reads the configuration objects of Gardener's seeds. Without
// permission to read them it returns nil, and no taint is marked.
func (o *Options) seedConfigs(ctx context.Context) map[string]*garden.SeedConfig {
	configs, err := o.client.ListSeedConfigs(ctx)
	if err != nil {
		return nil
	}
	return configs
}

// notePassing explains PassingMark under the table, on ErrOut, when a taint
// carries it.
func (o *Options) notePassing(items []corev1alpha1.Seed, configs map[string]*garden.SeedConfig) {
	var seeds []string
	for i := range items {
		if len(configs[items[i].Name].Passing(items[i].Spec.Taints)) > 0 {
			seeds = append(seeds, items[i].Name)
		}
	}
	if len(seeds) > 0 {
		fmt.Fprintf(o.ErrOut, "%s: on the Seed but not in its gardenlet configuration (%s): gardenlet removes it when it next starts\n",
			PassingMark, strings.Join(seeds, ", "))
	}
}
