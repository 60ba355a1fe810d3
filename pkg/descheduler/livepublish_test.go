package descheduler

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/algorithm"
	"github.com/graft-dev/graft/pkg/component/leadership"
	"github.com/graft-dev/graft/pkg/coretest"
)

const liveTestVersion = "v1.160.0"

// leaseWith is the descheduler's Lease, held by "me", carrying the record.
func leaseWith(t *testing.T, rec algorithm.LiveRecord) (*kubefake.Clientset, *leadership.Publisher) {
	t.Helper()
	value, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: "garden", Name: "graft-descheduler", Annotations: map[string]string{algorithm.LiveRecordAnnotation: string(value)}},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To("me")}}
	kube := kubefake.NewSimpleClientset(lease)
	return kube, &leadership.Publisher{Leases: kube.CoordinationV1(), Namespace: "garden", Name: "graft-descheduler", Identity: "me", Annotation: algorithm.LiveRecordAnnotation}
}

// declare gives the descheduler liveMigrationGardenletVersions after its
// start: the harness runs on graft's API, whose validation refuses them (only
// Gardener migrates), but the record's rules are the same on both.
func declare(h *harness, versions ...string) {
	h.d.cfg.LiveMigrationGardenletVersions = versions
	h.d.ev.liveFlow.Declared = sets.New(versions...)
}

// A fallback recorded by the last leader holds for the next one with the
// same declaration, and is forgotten when the declaration changed; the
// gardenlet versions seen live hold in both cases.
func TestRecallLiveFlowKeepsFallbacksUntilTheDeclarationChanges(t *testing.T) {
	pair := algorithm.LivePair(liveTestVersion, liveTestVersion)
	rec := algorithm.LiveRecord{Declared: []string{liveTestVersion}, Observed: []string{"v1.170.0"}, FellBack: []string{pair}}
	for _, tc := range []struct {
		name     string
		declared []string
		kept     bool
	}{
		{"same declaration", []string{liveTestVersion}, true},
		{"another version declared", []string{liveTestVersion, "v1.161.0"}, false},
		{"declaration emptied", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := start(t, nil)
			declare(h, tc.declared...)
			_, p := leaseWith(t, rec)
			if !h.d.recallLiveFlow(context.Background(), p) {
				t.Fatal("recallLiveFlow found no record")
			}
			if got := h.d.ev.liveFlow.FellBack.Has(pair); got != tc.kept {
				t.Errorf("fallback %s kept: %v, want %v", pair, got, tc.kept)
			}
			if !h.d.ev.liveFlow.Observed.Has("v1.170.0") {
				t.Errorf("the observed version was not recalled")
			}
			blocker := h.d.ev.liveBlocker(liveTestVersion, liveTestVersion)
			if tc.kept != strings.Contains(blocker, "fell back") {
				t.Errorf("liveBlocker says %q with the fallback kept %v", blocker, tc.kept)
			}
		})
	}
}

// A live intent the last leader wrote is judged by the next one: the
// shoot's gardenlet has meanwhile run a classic Restore.
func TestRecallLiveFlowJudgesPendingIntents(t *testing.T) {
	shoot := coretest.MakeShoot("garden-dev", "web").Seed("b").LastOperation(v1alpha1.LastOperationTypeRestore, v1alpha1.LastOperationStateSucceeded, "").Obj()
	shoot.UID = "uid-web"
	gone := algorithm.LiveRecordWrite{Shoot: "garden-dev/deleted", UID: "uid-deleted", From: liveTestVersion, To: liveTestVersion, Target: "b"}
	rec := algorithm.LiveRecord{Declared: []string{liveTestVersion}, Pending: []algorithm.LiveRecordWrite{
		{Shoot: "garden-dev/web", UID: "uid-web", From: liveTestVersion, To: liveTestVersion, Target: "b",
			Before: &v1alpha1.LastOperation{Type: v1alpha1.LastOperationTypeReconcile, State: v1alpha1.LastOperationStateSucceeded}},
		gone,
	}}
	h := start(t, nil, shoot)
	declare(h, liveTestVersion)
	_, p := leaseWith(t, rec)
	h.d.recallLiveFlow(context.Background(), p)
	if !h.d.ev.liveFlow.FellBack.Has(algorithm.LivePair(liveTestVersion, liveTestVersion)) {
		t.Errorf("the recalled intent answered by a Restore is not a fallback")
	}
	select {
	case e := <-h.recorder.Events:
		if !strings.Contains(e, EventLiveMigrationFellBack) {
			t.Errorf("Event %q, want %s", e, EventLiveMigrationFellBack)
		}
	default:
		t.Errorf("no %s Event", EventLiveMigrationFellBack)
	}
	if got := h.d.ev.liveRecord(); len(got.Pending) != 0 {
		t.Errorf("pending after the recall: %+v, want none (one answered, one of a deleted shoot)", got.Pending)
	}
}

// The record the evictor publishes reads back into the same evidence.
func TestLiveRecordRoundTrip(t *testing.T) {
	h := start(t, nil)
	declare(h, liveTestVersion)
	seed := coretest.MakeSeed("a").Obj()
	seed.Status.Gardener = &v1alpha1.SeedAgent{Version: liveTestVersion}
	shoot := coretest.MakeShoot("garden-dev", "web").Seed("a").LastOperation(v1alpha1.LastOperationTypeReconcile, v1alpha1.LastOperationStateSucceeded, strings.Repeat("x", 4096)).Obj()
	h.d.ev.liveWrote(shoot, seed, seed, "b")
	h.d.ev.liveFlow.FellBack.Insert("v1 -> v2")
	value, err := json.Marshal(h.d.ev.liveRecord())
	if err != nil {
		t.Fatal(err)
	}
	if len(value) > 1024 {
		t.Errorf("the record takes %d bytes for one intent: the description of the last operation is not kept", len(value))
	}
	rec, err := algorithm.DecodeLiveRecord(string(value))
	if err != nil {
		t.Fatal(err)
	}
	if f := rec.Flow([]string{liveTestVersion}); !f.FellBack.Has("v1 -> v2") || !f.Declared.Has(liveTestVersion) {
		t.Errorf("the record reads back as %+v", f)
	}
	if len(rec.Pending) != 1 || rec.Pending[0].Shoot != "garden-dev/web" || rec.Pending[0].Before.Type != v1alpha1.LastOperationTypeReconcile {
		t.Errorf("pending reads back as %+v", rec.Pending)
	}
	if _, err := algorithm.DecodeLiveRecord("{not json"); err == nil || !strings.Contains(err.Error(), algorithm.LiveRecordAnnotation) {
		t.Errorf("a malformed record gives %v", err)
	}
}
