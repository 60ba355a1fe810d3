//go:build integration

package descheduler

import (
	"bytes"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/utils/ptr"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/graftctl/factory"
	"github.com/graft-dev/graft/pkg/graftctl/taint"
	"github.com/graft-dev/graft/test/integration/descheduler/fixture"
)

// TestTolerationClockOneShot: with interval 0 each run is a new process. A
// run before timeAdded + tolerationSeconds leaves the tolerating shoot alone
// (while it evicts an untolerating one, so it did look at the seed), a run
// after it evicts the shoot. The taint is added with `graftctl taint`, which
// records timeAdded.
func TestTolerationClockOneShot(t *testing.T) {
	ctx, env, l := setup(t, "tclock1")
	must[*v1alpha1.Seed](t)(l.Seed(ctx, "a", -1))
	must[*v1alpha1.Seed](t)(l.Seed(ctx, "b", -1))
	limited := l.NewShoot("limited", "a")
	limited.Spec.Tolerations = limitedToleration(20)
	if err := l.CreateShoots(ctx, []*v1alpha1.Shoot{limited, l.NewShoot("plain", "a")}, 2); err != nil {
		t.Fatal(err)
	}

	var out, errOut bytes.Buffer
	cmd := taint.NewCommand(&factory.Static{Graft: l.Graft, Kube: l.Kube}, genericiooptions.IOStreams{In: &bytes.Buffer{}, Out: &out, ErrOut: &errOut})
	cmd.SetArgs([]string{"seed", l.SeedName("a"), drainTaint.Key + ":NoExecute"})
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	if err := cmd.ExecuteContext(ctx); err != nil {
		t.Fatalf("graftctl taint: %v (%s)", err, errOut.String())
	}
	added := drainTimeAdded(t, ctx, l, "a")

	oneShot := func(identity string) {
		t.Helper()
		d := startDescheduler(t, ctx, env, "tclock1-descheduler", identity, func(c *configv1alpha1.DeschedulerConfiguration) {
			fast(c)
			c.Interval = &metav1.Duration{}
			// As a CronJob runs it: one run at a time, no lease.
			fixture.LeaderElect(false)(c)
		})
		if err := d.Wait(time.Minute); err != nil {
			t.Fatalf("one-shot run %s: %v", identity, err)
		}
	}

	oneShot("before")
	if done := time.Now(); !done.Before(added.Add(20 * time.Second)) {
		t.Skipf("the machine is too slow: the first one-shot run ended %v after timeAdded, past the toleration", done.Sub(added))
	}
	s := shootsByName(t, ctx, l)
	if fixture.Of(ptr.To(s["plain"])) != "" {
		t.Fatal("the one-shot run did not evict the untolerating shoot")
	}
	if got := fixture.Of(ptr.To(s["limited"])); got != l.SeedName("a") {
		t.Fatalf("a one-shot run before timeAdded + tolerationSeconds moved the tolerating shoot (to %q)", got)
	}

	untilClock(t, ctx, added.Add(20*time.Second))
	oneShot("after")
	s = shootsByName(t, ctx, l)
	if got := fixture.Of(ptr.To(s["limited"])); got != "" {
		t.Fatalf("a one-shot run after timeAdded + tolerationSeconds left the shoot on %q", got)
	}
	if want := added.Add(20 * time.Second).UTC().Format(time.RFC3339); !strings.Contains(s["limited"].Annotations[v1alpha1.AnnotationDescheduledReason], "ran out at "+want) {
		t.Errorf("eviction reason %q does not say the toleration ran out at %s", s["limited"].Annotations[v1alpha1.AnnotationDescheduledReason], want)
	}
}
