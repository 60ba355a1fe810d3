package get

import (
	"k8s.io/apimachinery/pkg/runtime"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
)

// seedList wraps seeds in a list whose items carry apiVersion and kind, as the
// API server's list responses do not.
func seedList(items []corev1alpha1.Seed) *corev1alpha1.SeedList {
	return &corev1alpha1.SeedList{Items: withKind(items, "Seed")}
}

// shootList is seedList for shoots.
func shootList(items []corev1alpha1.Shoot) *corev1alpha1.ShootList {
	return &corev1alpha1.ShootList{Items: withKind(items, "Shoot")}
}

// withKind sets apiVersion and kind on every item and returns the items.
func withKind[T any, PT interface {
	*T
	runtime.Object
}](items []T, kind string) []T {
	gvk := corev1alpha1.SchemeGroupVersion.WithKind(kind)
	for i := range items {
		PT(&items[i]).GetObjectKind().SetGroupVersionKind(gvk)
	}
	return items
}
