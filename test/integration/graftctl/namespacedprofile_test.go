//go:build integration

package graftctl

import (
	"encoding/json"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/test/integration/descheduler/fixture"
)

// TestNamespacedCloudProfileShootMoves: a shoot of a NamespacedCloudProfile
// on a drained seed is moved, by graft-descheduler and graft-scheduler, to
// the seed its namespaced profile selects; graftctl drain --dry-run,
// simulate --from-cluster and describe say so first. graft-descheduler and graftctl once
// read cluster-wide CloudProfiles only and left such a shoot where it was
// (no seed fitted it).
func TestNamespacedCloudProfileShootMoves(t *testing.T) {
	l := newLandscape(t, "gctl-ncp", "a", "b", "c")
	a, c := l.SeedName("a"), l.SeedName("c")
	for _, short := range []string{"b", "c"} {
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			seed, err := l.Graft.CoreV1alpha1().Seeds().Get(t.Context(), l.SeedName(short), metav1.GetOptions{})
			if err != nil {
				return err
			}
			seed.Labels["pool"] = short
			_, err = l.Graft.CoreV1alpha1().Seeds().Update(t.Context(), seed, metav1.UpdateOptions{})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// The namespaced profile selects pool c; seed b would do for the
	// cluster-wide profile it derives from.
	parent, err := l.Graft.CoreV1alpha1().CloudProfiles().Get(t.Context(), fixture.CloudProfile, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ncps := l.Graft.CoreV1alpha1().NamespacedCloudProfiles(l.Name)
	ncp, err := ncps.Create(t.Context(), &corev1alpha1.NamespacedCloudProfile{
		ObjectMeta: metav1.ObjectMeta{Name: "team"},
		Spec:       corev1alpha1.NamespacedCloudProfileSpec{Parent: corev1alpha1.CloudProfileReference{Kind: "CloudProfile", Name: fixture.CloudProfile}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ncp.Status.CloudProfileSpec = parent.Spec
	ncp.Status.CloudProfileSpec.SeedSelector = &corev1alpha1.SeedSelector{LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{"pool": "c"}}}
	if _, err := ncps.UpdateStatus(t.Context(), ncp, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	namespaced := func(s *corev1alpha1.Shoot) {
		s.Spec.CloudProfileName = nil
		s.Spec.CloudProfile = &corev1alpha1.CloudProfileReference{Kind: "NamespacedCloudProfile", Name: "team"}
	}
	createShoots(t, l, "a", 1, namespaced)
	// A shoot no scheduler serves stays pending, for simulate.
	waiting := l.NewShoot("waiting", "")
	namespaced(waiting)
	waiting.Spec.SchedulerName = new("nobody")
	if err := l.CreateShoots(t.Context(), []*corev1alpha1.Shoot{waiting}, 1); err != nil {
		t.Fatal(err)
	}

	if out := run(t, "drain", a, "--dry-run"); !strings.Contains(out, "shoot/gctl-ncp/s-00 would move to seed/"+c+"\n") {
		t.Errorf("drain --dry-run printed\n%s\nwant shoot s-00 moving to seed/%s (its namespaced profile selects pool c)", out, c)
	}
	var predicted string
	for _, line := range strings.Split(strings.TrimSpace(run(t, "simulate", "--from-cluster", "-o", "json")), "\n") {
		var res struct{ Shoot, Seed, Error string }
		if err := json.Unmarshal([]byte(line), &res); err != nil {
			t.Fatalf("simulate printed %q: %v", line, err)
		}
		if res.Shoot == "gctl-ncp/waiting" {
			predicted = res.Seed + res.Error
		}
	}
	if predicted != c {
		t.Errorf("simulate --from-cluster placed the waiting shoot of the namespaced profile on %q, want %s", predicted, c)
	}
	if out := run(t, "describe", "shoot", "-n", l.Name, "waiting"); !strings.Contains(out, "scheduled to seed "+c+"\n") {
		t.Errorf("describe shoot waiting printed\n%s\nwant it scheduled to seed %s", out, c)
	}

	startScheduler(t, "gctl-ncp-scheduler")
	startDescheduler(t, "gctl-ncp-descheduler")
	out := run(t, "drain", a, "--timeout=2m", "--descheduler-lease-name=gctl-ncp-descheduler", "--descheduler-lease-namespace=garden")
	if !strings.Contains(out, "shoot/gctl-ncp/s-00 moved to seed/"+c+"\n") || !strings.HasSuffix(out, "seed/"+a+" drained\n") {
		t.Errorf("drain printed\n%s\nwant shoot s-00 moved to seed/%s and the seed drained", out, c)
	}
}
