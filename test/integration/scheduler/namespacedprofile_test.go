//go:build integration

package scheduler

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

// TestNamespacedCloudProfile: a shoot naming a NamespacedCloudProfile is
// decided with that profile's merged status.cloudProfileSpec (here its seed
// selector picks seed b), never with the cluster-wide CloudProfile of the
// same name (whose selector picks seed a); one whose merged spec is not
// written yet waits, saying so, and is placed once it is.
func TestNamespacedCloudProfile(t *testing.T) {
	f := newFixture(t)
	label := func(v string) func(*v1alpha1.Seed) {
		return func(s *v1alpha1.Seed) { s.Labels["pool"] = v }
	}
	f.createSeed("a", "eu-west-1", nil, label("a"))
	b := f.createSeed("b", "eu-west-1", nil, label("b")).Name
	selecting := func(v string) *v1alpha1.SeedSelector {
		return &v1alpha1.SeedSelector{LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{"pool": v}}}
	}
	// The fixture's cluster-wide profile shares the namespaced one's name.
	cp, err := f.graft.CoreV1alpha1().CloudProfiles().Get(f.ctx, f.name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cp.Spec.SeedSelector = selecting("a")
	if _, err := f.graft.CoreV1alpha1().CloudProfiles().Update(f.ctx, cp, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	ncps := f.graft.CoreV1alpha1().NamespacedCloudProfiles(f.ns)
	ncp, err := ncps.Create(f.ctx, &v1alpha1.NamespacedCloudProfile{
		ObjectMeta: metav1.ObjectMeta{Name: f.name},
		Spec:       v1alpha1.NamespacedCloudProfileSpec{Parent: v1alpha1.CloudProfileReference{Kind: "CloudProfile", Name: f.name}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}

	startScheduler(t, "sched-ncp", nil)
	shoot := f.newShoot("team", "eu-west-1")
	shoot.Spec.CloudProfileName = nil
	shoot.Spec.CloudProfile = &v1alpha1.CloudProfileReference{Kind: "NamespacedCloudProfile", Name: f.name}
	f.createShoot(shoot)
	f.waitFor("the shoot to wait for the merged profile", 30*time.Second, func() (bool, error) {
		lo := f.getShoot("team").Status.LastOperation
		return lo != nil && strings.Contains(lo.Description, "has no merged status.cloudProfileSpec yet"), nil
	})

	ncp.Status.CloudProfileSpec = v1alpha1.CloudProfileSpec{Type: f.provider, SeedSelector: selecting("b")}
	if _, err := ncps.UpdateStatus(f.ctx, ncp, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := f.waitForSeed("team", 30*time.Second); got != b {
		t.Fatalf("shoot bound to %s, want %s (the namespaced profile's selector)", got, b)
	}
}
