package capacity

import (
	"context"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"

	"github.com/graft-dev/graft/pkg/capacity/forecast"
	"github.com/graft-dev/graft/pkg/component/leadership"
	"github.com/graft-dev/graft/pkg/coretest"
)

// TestDeparturesOutliveTheLeader: the deletions the shoot informer reports
// (tombstones too) are departures of the forecast; the leader publishes
// those within the window on its Lease each period, a new leader starts
// from them, and graftctl reads the same list with the configuration.
func TestDeparturesOutliveTheLeader(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	kube := kubefake.NewSimpleClientset(&coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Namespace: "garden", Name: "graft-capacity-annotator", Annotations: map[string]string{forecast.Annotation: `{"version":"v1","window":"6h0m0s","horizon":"24h0m0s"}`}},
		Spec:       coordinationv1.LeaseSpec{HolderIdentity: ptr.To("leader")},
	})
	leader := func() *forecaster {
		return &forecaster{
			cfg:   configv1alpha1.ForecastConfiguration{Window: metav1.Duration{Duration: 6 * time.Hour}},
			clock: clocktesting.NewFakeClock(now), shoots: cache.NewStore(cache.DeletionHandlingMetaNamespaceKeyFunc),
			publishDepartures: &leadership.Publisher{Leases: kube.CoordinationV1(), Namespace: "garden", Name: "graft-capacity-annotator",
				Identity: "leader", Annotation: forecast.DeparturesAnnotation, What: "departures"},
		}
	}
	f := leader()
	old := coretest.MakeShoot("garden-evil", "s").Seed("a").Created(now.Add(-24 * time.Hour)).Obj()
	_ = f.shoots.Add(old)
	f.departed(old)
	if n := len(f.shoots.List()); n != 0 {
		t.Errorf("the forecast still sees %d shoots after their deletion", n)
	}
	f.departed(cache.DeletedFinalStateUnknown{Key: "garden-evil/t", Obj: coretest.MakeShoot("garden-evil", "t").Seed("b").Created(now.Add(-24 * time.Hour)).Obj()})
	f.departed(coretest.MakeShoot("garden-dev", "pending").Created(now.Add(-24 * time.Hour)).Obj()) // no seed: no departure of a pool
	list := f.departures.Within(now, f.cfg.Window.Duration)
	if len(list) != 2 || list[0].Seed != "a" || list[1].Seed != "b" {
		t.Fatalf("departures %+v, want the two placed shoots", list)
	}
	f.publishDeparted(ctx, list)

	next := leader()
	next.recallDepartures(ctx)
	if got := next.departures.Within(now, 6*time.Hour); len(got) != 2 || got[0] != list[0] || got[1] != list[1] {
		t.Errorf("the next leader recalls %+v, want %+v", got, list)
	}
	published, err := forecast.Read(ctx, kube.CoordinationV1(), "garden", "graft-capacity-annotator")
	if err != nil {
		t.Fatal(err)
	}
	if len(published.Departures) != 2 {
		t.Errorf("graftctl reads %+v, want the two departures", published.Departures)
	}
	// Out of the window they go.
	later := now.Add(6 * time.Hour)
	if got := next.departures.Within(later, 6*time.Hour); len(got) != 0 {
		t.Errorf("departures %+v a window later, want none", got)
	}
}
