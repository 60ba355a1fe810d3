package poolscaler

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"
	"github.com/graft-dev/graft/pkg/capacity/forecast"
	"github.com/graft-dev/graft/pkg/garden"
)

// Event reasons of the scaler, on the ManagedSeedSet.
const (
	ReasonScaledOut       = "ScaledOut"
	ReasonScaledIn        = "ScaledIn"
	ReasonWouldScale      = "WouldScale"
	ReasonScaleOutAtMax   = "ScaleOutAtMax"
	ReasonCordonedToScale = "CordonedForScaleIn"
	ReasonUncordoned      = "UncordonedForDemand"
	ReasonScaleFailed     = "ScaleFailed"
)

// Results of a step, the values of the result label of the steps metric.
const (
	ResultDone   = "done"
	ResultDryRun = "dry_run"
	ResultError  = "error"
)

// Pool is a configured pool whose ManagedSeedSet is scaled.
type Pool struct {
	Name     string
	Selector labels.Selector
	Set      *configv1alpha1.ManagedSeedSetScaling
}

// Metrics are the scaler's series (graft-capacity-annotator registers them
// with its own).
type Metrics interface {
	// SetSet publishes the set's replicas, its bounds and whether it is at
	// max with demand.
	SetSet(pool string, replicas int32, cfg *configv1alpha1.ManagedSeedSetScaling, atMax bool)
	// Stepped counts one step (out, in, cordon, uncordon) with its result.
	Stepped(pool, step, result string)
}

// Reconciler steps the pools' ManagedSeedSets, one decision per pool and
// forecast. It remembers across forecasts what a decision needs and the
// API does not keep: since when a pool is low, when a seed was cordoned,
// whether the at-max Warning was given and the last report. It runs on one
// goroutine (the forecast loop's).
type Reconciler struct {
	actuator Actuator
	recorder record.EventRecorder
	metrics  Metrics
	// horizon is the forecast's horizon.
	horizon time.Duration

	lowSince   map[string]time.Time
	atMax      map[string]bool
	cordonedAt map[string]time.Time
	// reported is, per pool, the last dry-run step or failure reported, so
	// that one that repeats every forecast is reported once.
	reported map[string]string
}

// Reconcile decides and takes one step of the pool's ManagedSeedSet, given
// the pool's forecast summary, the garden's seeds and their usage by
// seed name.
func (r *Reconciler) Reconcile(ctx context.Context, p Pool, s forecast.Summary, seeds []*v1alpha1.Seed, usage map[string]int, now time.Time) error {
	log := klog.FromContext(ctx).WithValues("pool", p.Name, "managedSeedSet", klog.KRef(p.Set.Namespace, p.Set.Name))
	set, err := r.actuator.Get(ctx, p.Set.Namespace, p.Set.Name)
	if err != nil {
		return fmt.Errorf("reading the ManagedSeedSet: %w", err)
	}
	facts := r.facts(p, set.Replicas, set.Annotations, s, seeds, usage, now)
	st := decideStep(facts, p.Set, r.horizon, now)
	atMax := st.Waiting == waitAtMax
	r.metrics.SetSet(p.Name, facts.Replicas, p.Set, atMax)

	ref := set.Ref()
	if atMax && !r.atMax[p.Name] {
		r.recorder.Eventf(ref, corev1.EventTypeWarning, ReasonScaleOutAtMax,
			"The pool needs another seed (%s) but the set is at maxReplicas %d", st.Reason, p.Set.MaxReplicas)
	}
	r.atMax[p.Name] = atMax
	if st.Kind == stepNone {
		delete(r.reported, p.Name)
		return nil
	}
	what := describeStep(st, facts.Replicas)
	if p.Set.DryRun {
		// The same decision comes every forecast while nothing changes: it
		// is reported and counted once.
		if r.reported[p.Name] == "dry run: "+what {
			return nil
		}
		r.reported[p.Name] = "dry run: " + what
		log.Info("Dry run: would step the ManagedSeedSet", "step", st.Kind, "replicas", st.To, "seed", st.Seed, "reason", st.Reason)
		r.recorder.Eventf(ref, corev1.EventTypeNormal, ReasonWouldScale, "Dry run: would %s: %s", what, st.Reason)
		r.metrics.Stepped(p.Name, string(st.Kind), ResultDryRun)
		return nil
	}
	if err := r.take(ctx, set, facts.Replicas, st, now); err != nil {
		r.metrics.Stepped(p.Name, string(st.Kind), ResultError)
		if apierrors.IsConflict(err) {
			log.V(2).Info("The ManagedSeedSet or seed changed while stepping, deciding again", "step", st.Kind, "err", err.Error())
			return nil
		}
		if failed := "failed: " + what + ": " + err.Error(); r.reported[p.Name] != failed {
			r.reported[p.Name] = failed
			r.recorder.Eventf(ref, corev1.EventTypeWarning, ReasonScaleFailed, "Could not %s: %v", what, err)
		}
		return err
	}
	delete(r.reported, p.Name)
	r.metrics.Stepped(p.Name, string(st.Kind), ResultDone)
	log.Info("Stepped the ManagedSeedSet", "step", st.Kind, "replicas", st.To, "seed", st.Seed, "reason", st.Reason)
	reason := map[stepKind]string{stepOut: ReasonScaledOut, stepIn: ReasonScaledIn, stepCordon: ReasonCordonedToScale, stepUncordon: ReasonUncordoned}[st.Kind]
	r.recorder.Eventf(ref, corev1.EventTypeNormal, reason, "%s: %s", upperFirst(what), st.Reason)
	return nil
}

// facts gathers what the pool's step is decided on: the set's replicas and
// last step, its seeds (those of the pool named <set>-<ordinal>), and since
// when the pool is low and each seed cordoned.
func (r *Reconciler) facts(p Pool, replicas int32, annotations map[string]string, s forecast.Summary, seeds []*v1alpha1.Seed, usage map[string]int, now time.Time) setFacts {
	facts := setFacts{Replicas: replicas, Pool: s}
	if at, ok := annotations[AnnotationScaledAt]; ok {
		if t, err := time.Parse(time.RFC3339, at); err == nil {
			facts.ScaledAt = t
		}
	}
	for _, seed := range seeds {
		ordinal, ok := parseReplica(p.Set.Name, seed.Name)
		if !ok || !p.Selector.Matches(labels.Set(seed.Labels)) {
			continue
		}
		rep := replica{Name: seed.Name, Ordinal: ordinal, Usage: usage[seed.Name], Deleting: seed.DeletionTimestamp != nil}
		rep.Ready = helper.SeedUnusableReason(seed) == ""
		if q, ok := seed.Status.Allocatable[v1alpha1.ResourceShoots]; ok {
			rep.Allocatable = q.Value()
		}
		for _, t := range seed.Spec.Taints {
			rep.Cordoned = rep.Cordoned || t.Key == TaintScaleIn
		}
		if rep.Cordoned {
			if _, ok := r.cordonedAt[seed.Name]; !ok {
				r.cordonedAt[seed.Name] = now // after a restart: settle again
			}
			rep.CordonedAt = r.cordonedAt[seed.Name]
		} else {
			delete(r.cordonedAt, seed.Name)
		}
		facts.Seeds = append(facts.Seeds, rep)
	}
	if isLow(facts, p.Set, r.horizon) {
		if r.lowSince[p.Name].IsZero() {
			r.lowSince[p.Name] = now
		}
	} else {
		delete(r.lowSince, p.Name)
	}
	facts.LowSince = r.lowSince[p.Name]
	return facts
}

// take carries out a step through the actuator.
func (r *Reconciler) take(ctx context.Context, set *garden.ManagedSeedSet, from int32, st step, now time.Time) error {
	switch st.Kind {
	case stepOut, stepIn:
		return r.actuator.Scale(ctx, set, from, st, now)
	case stepCordon, stepUncordon:
		err := r.actuator.Cordon(ctx, st.Seed, st.Kind == stepCordon)
		if err == nil && st.Kind == stepCordon {
			r.cordonedAt[st.Seed] = now
		}
		return err
	}
	return nil
}

func describeStep(st step, from int32) string {
	switch st.Kind {
	case stepOut:
		return fmt.Sprintf("scale out from %d to %d replicas", from, st.To)
	case stepIn:
		return fmt.Sprintf("scale in from %d to %d replicas (seed %s goes)", from, st.To, st.Seed)
	case stepCordon:
		return fmt.Sprintf("cordon seed %s before scaling in", st.Seed)
	case stepUncordon:
		return fmt.Sprintf("uncordon seed %s", st.Seed)
	}
	return "do nothing"
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}
