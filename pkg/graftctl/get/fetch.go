package get

import (
	"context"
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"

	"github.com/graft-dev/graft/pkg/algorithm"
)

func (o *Options) getSeeds(ctx context.Context) ([]corev1alpha1.Seed, error) {
	if len(o.names) > 0 {
		items := make([]corev1alpha1.Seed, 0, len(o.names))
		for _, name := range o.names {
			seed, err := o.client.CoreV1alpha1().Seeds().Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return nil, err
			}
			items = append(items, *seed)
		}
		return items, nil
	}
	list, err := o.client.CoreV1alpha1().Seeds().List(ctx, metav1.ListOptions{LabelSelector: o.Selector})
	if err != nil {
		return nil, err
	}
	sort.Slice(list.Items, func(i, j int) bool { return list.Items[i].Name < list.Items[j].Name })
	return list.Items, nil
}

func (o *Options) getShoots(ctx context.Context) ([]corev1alpha1.Shoot, error) {
	namespace := o.namespace
	if o.AllNamespaces {
		namespace = metav1.NamespaceAll
	}
	if len(o.names) > 0 {
		items := make([]corev1alpha1.Shoot, 0, len(o.names))
		for _, name := range o.names {
			shoot, err := o.client.CoreV1alpha1().Shoots(o.namespace).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return nil, err
			}
			items = append(items, *shoot)
		}
		return items, nil
	}
	list, err := o.client.CoreV1alpha1().Shoots(namespace).List(ctx, metav1.ListOptions{LabelSelector: o.Selector})
	if err != nil {
		return nil, err
	}
	sort.Slice(list.Items, func(i, j int) bool {
		a, b := list.Items[i], list.Items[j]
		if a.Namespace != b.Namespace {
			return a.Namespace < b.Namespace
		}
		return a.Name < b.Name
	})
	return list.Items, nil
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
	list, err := o.client.CoreV1alpha1().Shoots(metav1.NamespaceAll).List(ctx, metav1.ListOptions{ResourceVersion: "0"})
	if err != nil {
		return nil
	}
	counter := algorithm.NewShootCounter()
	for i := range list.Items {
		counter.Set(&list.Items[i])
	}
	counts := make(map[string]int, len(items))
	for i := range items {
		counts[items[i].Name] = counter.Count(items[i].Name)
	}
	return counts
}
