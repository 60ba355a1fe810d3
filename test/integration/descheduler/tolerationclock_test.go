//go:build integration

package descheduler

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/test/integration/descheduler/fixture"
)

// clockInterval is the pass interval of the toleration clock tests.
const clockInterval = 3 * time.Second

func limitedToleration(seconds int64) []v1alpha1.Toleration {
	return []v1alpha1.Toleration{{Key: v1alpha1.SeedTaintUnschedulable, Effect: v1alpha1.TaintEffectNoExecute, TolerationSeconds: ptr.To(seconds)}}
}

// drainTimeAdded waits until seed short's drain taint carries timeAdded and
// returns it.
func drainTimeAdded(t *testing.T, ctx context.Context, l *fixture.Landscape, short string) time.Time {
	t.Helper()
	var added time.Time
	eventually(t, ctx, 30*time.Second, "timeAdded on the drain taint of seed "+short, func() (bool, error) {
		seed, err := l.Graft.CoreV1alpha1().Seeds().Get(ctx, l.SeedName(short), metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, tt := range seed.Spec.Taints {
			if tt.Key == drainTaint.Key && tt.Effect == drainTaint.Effect && tt.TimeAdded != nil {
				added = tt.TimeAdded.Time
				return true, nil
			}
		}
		return false, nil
	})
	return added
}

// untilClock waits until the wall clock has passed at: the scenario needs
// that much of the toleration to have run out, no component is waited for.
func untilClock(t *testing.T, ctx context.Context, at time.Time) {
	t.Helper()
	eventually(t, ctx, time.Until(at)+10*time.Second, "the clock to reach "+at.Format(time.RFC3339), func() (bool, error) {
		return !time.Now().Before(at), nil
	})
}

// TestTolerationClockSurvivesRestart: a NoExecute taint without timeAdded is
// stamped by the descheduler; the descheduler is stopped mid-toleration and
// a new instance started; the shoot tolerating the taint for 20s leaves at
// the stored timeAdded + 20s, not 20s after the new instance started.
func TestTolerationClockSurvivesRestart(t *testing.T) {
	ctx, env, l := setup(t, "tclock")
	must[*v1alpha1.Seed](t)(l.Seed(ctx, "a", -1))
	must[*v1alpha1.Seed](t)(l.Seed(ctx, "b", -1))
	limited := l.NewShoot("limited", "a")
	limited.Spec.Tolerations = limitedToleration(20)
	if err := l.CreateShoots(ctx, []*v1alpha1.Shoot{limited, l.NewShoot("plain", "a")}, 2); err != nil {
		t.Fatal(err)
	}
	rec := record(t, ctx, l)
	config := func(c *configv1alpha1.DeschedulerConfiguration) {
		fast(c)
		c.Interval = &metav1.Duration{Duration: clockInterval}
	}
	d1 := startDescheduler(t, ctx, env, "tclock-descheduler", "d1", config)
	eventually(t, ctx, 30*time.Second, "first descheduler ready", func() (bool, error) { return d1.Descheduler.Ready(), nil })

	// A taint as a hand edit or a Gardener manifest writes it: no timeAdded.
	if err := l.SetTaints(ctx, "a", drainTaint); err != nil {
		t.Fatal(err)
	}
	added := drainTimeAdded(t, ctx, l, "a")
	eventually(t, ctx, 30*time.Second, "the untolerating shoot evicted by the first descheduler", func() (bool, error) {
		return !rec.evictedAt("plain").IsZero(), nil
	})
	if err := d1.Stop(); err != nil {
		t.Fatalf("stopping the first descheduler: %v", err)
	}
	if !rec.evictedAt("limited").IsZero() {
		t.Fatalf("shoot with tolerationSeconds 20 evicted %v after timeAdded", rec.evictedAt("limited").Sub(added))
	}

	// Half the toleration passes with no descheduler running.
	untilClock(t, ctx, added.Add(10*time.Second))
	// A descheduler that lost the clock would count the toleration from its
	// own first sighting of the taint, no earlier than its start.
	d2Started := time.Now()
	d2 := startDescheduler(t, ctx, env, "tclock-descheduler", "d2", config)
	eventually(t, ctx, 30*time.Second, "second descheduler ready", func() (bool, error) { return d2.Descheduler.Ready(), nil })

	eventually(t, ctx, time.Until(added.Add(20*time.Second))+2*time.Minute, "shoot with tolerationSeconds evicted", func() (bool, error) {
		return !rec.evictedAt("limited").IsZero(), nil
	})
	wait := rec.evictedAt("limited").Sub(added)
	if wait < 20*time.Second {
		t.Errorf("shoot with tolerationSeconds 20 left %v after the stored timeAdded %s, before its toleration ran out",
			wait, added.UTC().Format(time.RFC3339))
	}
	if !rec.evictedAt("limited").Before(d2Started.Add(20 * time.Second)) {
		t.Errorf("shoot with tolerationSeconds 20 left %v after the stored timeAdded %s and %v after the second descheduler started: it counted from its own sighting, not the stored timeAdded",
			wait, added.UTC().Format(time.RFC3339), rec.evictedAt("limited").Sub(d2Started))
	}
	s := shootsByName(t, ctx, l)["limited"]
	if want := added.Add(20 * time.Second).UTC().Format(time.RFC3339); !strings.Contains(s.Annotations[v1alpha1.AnnotationDescheduledReason], "ran out at "+want) {
		t.Errorf("eviction reason %q does not say the toleration ran out at %s", s.Annotations[v1alpha1.AnnotationDescheduledReason], want)
	}
}
