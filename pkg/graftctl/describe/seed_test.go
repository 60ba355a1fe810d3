package describe

import (
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"

	"github.com/graft-dev/client-go/clientset/versioned/fake"
	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"

	"github.com/graft-dev/graft/pkg/capacity/forecast"
	"github.com/graft-dev/graft/pkg/coretest"
	"github.com/graft-dev/graft/pkg/graftctl/cmdtest"
)

// describe seed shows what an operator asks of a seed: its taints with
// effects and age, its conditions, capacity and the shoots counted on it now,
// the shoots on it and migrating to or from it, its Events, and why the
// shoots waiting for a seed do not go to it.
func TestDescribeSeed(t *testing.T) {
	added := metav1.NewTime(testNow.Add(-10 * time.Minute))
	seed := coretest.MakeSeed("a").Allocatable(3).Taints(
		corev1alpha1.SeedTaint{Key: "maintenance", Effect: corev1alpha1.TaintEffectNoExecute, TimeAdded: &added},
		corev1alpha1.SeedTaint{Key: "soft", Effect: corev1alpha1.TaintEffectPreferNoSchedule},
	).Obj()
	seed.Status.Conditions = []corev1alpha1.Condition{{Type: "GardenletReady", Status: corev1alpha1.ConditionTrue, Reason: "GardenletReady", LastTransitionTime: metav1.NewTime(testNow.Add(-time.Hour))}}
	other := coretest.MakeSeed("b").Obj()
	arriving := coretest.MakeShoot("dev", "arriving").Seed("a").Obj()
	arriving.Status.SeedName = ptr.To("b")
	leaving := coretest.MakeShoot("dev", "leaving").Seed("b").Obj()
	leaving.Status.SeedName = ptr.To("a")
	graft := fake.NewSimpleClientset(coretest.MakeCloudProfile("aws").Regions("eu-west-1").Obj(), seed, other,
		coretest.MakeShoot("dev", "tolerating").Seed("a").Tolerations(corev1alpha1.Toleration{Key: "maintenance"}).Obj(),
		arriving, leaving,
		coretest.MakeShoot("dev", "waiting").Obj())
	kube := kubefake.NewSimpleClientset(&corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Namespace: "default", Name: "e1"},
		InvolvedObject: corev1.ObjectReference{Kind: "Seed", Name: "a"},
		Type:           corev1.EventTypeNormal, Reason: "Descheduled", Message: "Evicted 1 shoot(s)",
		Source: corev1.EventSource{Component: "graft-descheduler"}, LastTimestamp: metav1.NewTime(testNow.Add(-time.Minute)), Count: 1,
	})
	out, err := run(t, graft, kube, "seed", "a")
	if err != nil {
		t.Fatal(err)
	}
	cmdtest.Contains(t, out,
		"Name:         a\n",
		"Taints:       maintenance:NoExecute (added 10m ago)\n",
		"              soft:PreferNoSchedule\n",
		"  GardenletReady  True    60m ago",
		"  Allocatable:        3\n",
		"  Shoots On It (1):   dev/tolerating\n",
		"  Migrating In (1):   dev/arriving (from b)\n",
		"  Migrating Out (1):  dev/leaving (to b)\n",
		"  Normal  Descheduled  60s   graft-descheduler  Evicted 1 shoot(s)\n",
		"  Usage:              3 counted now\n", // a migrating shoot counts on both seeds
		"  dev/waiting: Taints: shoot does not tolerate the seed's taints (maintenance:NoExecute)\n",
	)
}

// describe seed of a seed drained in maintenance windows prints the drain's
// plan: each shoot, where and when it goes, how and why.
func TestDescribeDrainedSeedShowsThePlan(t *testing.T) {
	seed := coretest.MakeSeed("a").Taints(
		corev1alpha1.SeedTaint{Key: corev1alpha1.SeedTaintUnschedulable, Effect: corev1alpha1.TaintEffectNoSchedule},
		corev1alpha1.SeedTaint{Key: corev1alpha1.SeedTaintUnschedulable, Effect: corev1alpha1.TaintEffectNoExecute, TimeAdded: ptr.To(metav1.NewTime(testNow))},
	).Annotation(corev1alpha1.AnnotationDrainDeadline, "2026-01-03T12:00:00Z").Obj()
	graft := fake.NewSimpleClientset(coretest.MakeCloudProfile("aws").Regions("eu-west-1").Obj(), seed, coretest.MakeSeed("b").Obj(),
		coretest.MakeShoot("dev", "night").Seed("a").MaintenanceWindow("230000+0100", "000000+0100").Obj())
	out, err := run(t, graft, kubefake.NewSimpleClientset(), "seed", "a")
	if err != nil {
		t.Fatal(err)
	}
	cmdtest.Contains(t, out,
		"Drain Plan:  1 shoot(s): 0 move now, 1 later, 0 cannot move, 0 stay\n",
		"  SHOOT      DESTINATION  WHEN                  HOW    WHY\n",
		"  dev/night  b            2026-01-01T22:00:00Z  evict  waits for its maintenance window (22:00:00-23:00:00 UTC)\n",
	)
}

// describe seed prints the forecast of the seed's region and pools with the
// window, horizon and pools graft-capacity-annotator publishes on its Lease.
func TestDescribeSeedForecast(t *testing.T) {
	full := coretest.MakeSeed("a").Allocatable(2).Label("pool", "blue").Obj()
	roomy := coretest.MakeSeed("b").Allocatable(10).Obj()
	graft := fake.NewSimpleClientset(coretest.MakeCloudProfile("aws").Regions("eu-west-1").Obj(), full, roomy,
		coretest.MakeShoot("dev", "one").Seed("a").Created(testNow.Add(-time.Hour)).Obj(),
		coretest.MakeShoot("dev", "two").Seed("a").Created(testNow.Add(-30*time.Minute)).Obj(),
		coretest.MakeShoot("dev", "three").Seed("b").Created(testNow.Add(-3*time.Hour)).Obj(),
		coretest.MakeShoot("dev", "blue").SelectSeeds(map[string]string{"pool": "blue"}).Created(testNow.Add(-time.Minute)).Obj())
	published := `{"version":"v1","window":"4h0m0s","horizon":"24h0m0s","pools":[{"name":"blue","seedSelector":{"matchLabels":{"pool":"blue"}},` +
		`"managedSeedSet":{"namespace":"garden","name":"blue","minReplicas":1,"maxReplicas":4}}]}`
	kube := kubefake.NewSimpleClientset(&coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: "garden", Name: "graft-capacity-annotator",
		Annotations: map[string]string{forecast.Annotation: published}}})
	out, err := run(t, graft, kube, "seed", "a")
	if err != nil {
		t.Fatal(err)
	}
	// The region: 9 free, one of them for the shoot waiting for pool blue;
	// 4 new in 4 hours, so 8 slots last 8 hours. Pool blue: full, the
	// waiting shoot one of its 3 arrivals.
	cmdtest.Contains(t, out,
		"Forecast:            new shoots over 4h, horizon 24h\n",
		"  Region eu-west-1:  9 free, 1 waiting for capacity, 1.0 new an hour, full in 8h (within the horizon)\n",
		"  Pool blue:         0 free, 1 waiting for capacity, 0.8 new an hour, full now (within the horizon); ManagedSeedSet garden/blue, 1 to 4 replicas\n",
	)

	// Without the annotator's configuration: the regions alone, with the
	// default window, and a warning.
	out, err = run(t, graft, kubefake.NewSimpleClientset(), "seed", "a")
	if err != nil {
		t.Fatal(err)
	}
	cmdtest.Contains(t, out,
		"Forecast:            new shoots over 6h, horizon 24h\n",
		`warning:           graft-capacity-annotator's Lease garden/graft-capacity-annotator could not be read`,
		"  Region eu-west-1:  9 free, 1 waiting for capacity, 0.7 new an hour, full in 12h (within the horizon)\n",
	)
}
