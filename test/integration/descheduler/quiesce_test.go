//go:build integration

package descheduler

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/test/integration/descheduler/fixture"
)

// markerTaintKey taints the marker seeds: no shoot tolerates it, and the
// markers have no status (not ready), so the scheduler never places a shoot
// there and the markers change no decision.
const markerTaintKey = "graft.dev/test-marker"

var markerSeq atomic.Int64

// quiesce proves that the leading descheduler has finished every pass that
// changes made before the call could have started. It creates two marker
// seeds, one after the other, each with a NoExecute taint lacking timeAdded,
// and waits until the descheduler has stamped both: a pass stamps a seed only
// when that seed is in the view it took when it began, and passes run one at
// a time, so the pass that stamped the second marker began after the pass
// that stamped the first had ended, and that one began after everything
// queued before the first marker was created. Dry-run descheduler never
// stamp; do not use quiesce with them.
func quiesce(t *testing.T, ctx context.Context, l *fixture.Landscape) {
	t.Helper()
	for range 2 {
		short := fmt.Sprintf("marker-%d", markerSeq.Add(1))
		if _, err := l.BareSeed(ctx, short, v1alpha1.SeedTaint{Key: markerTaintKey, Effect: v1alpha1.TaintEffectNoExecute}); err != nil {
			t.Fatal(err)
		}
		eventually(t, ctx, time.Minute, "the descheduler to stamp marker seed "+short, func() (bool, error) {
			seed, err := l.Graft.CoreV1alpha1().Seeds().Get(ctx, l.SeedName(short), metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			for _, tt := range seed.Spec.Taints {
				if tt.Key == markerTaintKey && tt.TimeAdded != nil {
					return true, nil
				}
			}
			return false, nil
		})
	}
}

// caughtUp waits until the recorder's watch has delivered the placement every
// shoot of the landscape has now, so that its history is complete up to this
// moment.
func caughtUp(t *testing.T, ctx context.Context, l *fixture.Landscape, rec *recorder) {
	t.Helper()
	eventually(t, ctx, time.Minute, "the recorder's watch to catch up with the shoots", func() (bool, error) {
		shoots, err := l.Shoots(ctx)
		if err != nil {
			return false, err
		}
		for i := range shoots {
			h := rec.seeds(shoots[i].Name)
			if len(h) == 0 || h[len(h)-1] != fixture.Of(&shoots[i]) {
				return false, nil
			}
		}
		return true, nil
	})
}
