package poolscaler

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/garden"
)

// Actuator carries out a pool's steps. Every write is preconditioned on the
// resourceVersion read: an object changed meanwhile (by an operator, or a
// leader that lost its lease) is refused with a conflict and decided again
// at the next forecast.
type Actuator interface {
	// Get reads the ManagedSeedSet.
	Get(ctx context.Context, namespace, name string) (*garden.ManagedSeedSet, error)
	// Scale writes the set's spec.replicas to st.To and records the step
	// on it (AnnotationScaledAt, AnnotationScaled).
	Scale(ctx context.Context, set *garden.ManagedSeedSet, from int32, st step, now time.Time) error
	// Cordon adds (add) or removes TaintScaleIn on the seed; a seed that is
	// gone needs neither.
	Cordon(ctx context.Context, seed string, add bool) error
}

// gardenActuator is the Actuator on a Gardener garden.
type gardenActuator struct {
	sets         *garden.ManagedSeedSets
	client       garden.Client
	fieldManager string
}

func (a gardenActuator) Get(ctx context.Context, namespace, name string) (*garden.ManagedSeedSet, error) {
	return a.sets.Get(ctx, namespace, name)
}

func (a gardenActuator) Scale(ctx context.Context, set *garden.ManagedSeedSet, from int32, st step, now time.Time) error {
	return a.sets.Scale(ctx, set, st.To, map[string]string{
		AnnotationScaledAt: now.UTC().Format(time.RFC3339),
		AnnotationScaled:   fmt.Sprintf("%s %d to %d", st.Kind, from, st.To),
	}, a.fieldManager)
}

func (a gardenActuator) Cordon(ctx context.Context, name string, add bool) error {
	seed, err := a.client.GetSeed(ctx, name)
	if err != nil {
		return err
	}
	var taints []v1alpha1.SeedTaint
	for _, t := range seed.Spec.Taints {
		if t.Key != TaintScaleIn {
			taints = append(taints, t)
		}
	}
	if add {
		taints = append(taints, v1alpha1.SeedTaint{Key: TaintScaleIn, Effect: v1alpha1.TaintEffectNoSchedule})
	}
	data, err := a.client.API().TaintsPatch(seed, taints)
	if err != nil {
		return err
	}
	_, err = a.client.PatchSeed(ctx, name, data, metav1.PatchOptions{FieldManager: a.fieldManager})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}
