//go:build integration

package descheduler

import (
	"context"

	corev1 "k8s.io/api/core/v1"

	"github.com/graft-dev/graft/test/integration/descheduler/fixture"
)

type corevEvent = corev1.Event

// descheduledEvents are the Descheduled Events on the landscape's shoots.
func descheduledEvents(ctx context.Context, l *fixture.Landscape) ([]corev1.Event, error) {
	all, err := l.Events(ctx, "Descheduled")
	if err != nil {
		return nil, err
	}
	var out []corev1.Event
	for _, e := range all {
		if e.InvolvedObject.Kind == "Shoot" {
			out = append(out, e)
		}
	}
	return out, nil
}
