package get

import (
	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
)

// seedList wraps seeds in a list whose items carry apiVersion and kind, as the
// API server's list responses do not.
func seedList(items []corev1alpha1.Seed) *corev1alpha1.SeedList {
	list := &corev1alpha1.SeedList{Items: items}
	for i := range list.Items {
		list.Items[i].APIVersion = corev1alpha1.SchemeGroupVersion.String()
		list.Items[i].Kind = "Seed"
	}
	return list
}

func shootList(items []corev1alpha1.Shoot) *corev1alpha1.ShootList {
	list := &corev1alpha1.ShootList{Items: items}
	for i := range list.Items {
		list.Items[i].APIVersion = corev1alpha1.SchemeGroupVersion.String()
		list.Items[i].Kind = "Shoot"
	}
	return list
}
