package seedcmd

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clienttesting "k8s.io/client-go/testing"

	"github.com/graft-dev/client-go/clientset/versioned/fake"
	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"

	"github.com/graft-dev/graft/pkg/coretest"
	"github.com/graft-dev/graft/pkg/garden"
)

var addA = func(s *corev1alpha1.Seed) ([]corev1alpha1.SeedTaint, bool, error) {
	_, taints, err := ApplyTaints(s.Name, s.Spec.Taints, TaintChanges{Add: []corev1alpha1.SeedTaint{{Key: "a", Effect: corev1alpha1.TaintEffectNoSchedule}}}, false, time.Now())
	return taints, err == nil, err
}

func patches(client *fake.Clientset) []clienttesting.PatchAction {
	var out []clienttesting.PatchAction
	for _, a := range client.Actions() {
		if p, ok := a.(clienttesting.PatchAction); ok {
			out = append(out, p)
		}
	}
	return out
}

func TestUpdateTaintsSendsMergePatchWithResourceVersion(t *testing.T) {
	client := fake.NewSimpleClientset(coretest.MakeSeed("s1").ResourceVersion("7").Obj())
	got, changed, err := UpdateTaints(context.Background(), garden.NewGraft(client), "s1", DryRunNone, addA)
	if err != nil || !changed {
		t.Fatalf("Update: changed=%v err=%v", changed, err)
	}
	if helper.FormatTaints(got.Spec.Taints, ",") != "a:NoSchedule" {
		t.Errorf("returned taints %s", helper.FormatTaints(got.Spec.Taints, ","))
	}
	ps := patches(client)
	if len(ps) != 1 {
		t.Fatalf("got %d patches, want 1", len(ps))
	}
	var body map[string]map[string]any
	if err := json.Unmarshal(ps[0].GetPatch(), &body); err != nil {
		t.Fatal(err)
	}
	if rv := body["metadata"]["resourceVersion"]; rv != "7" {
		t.Errorf("patch resourceVersion = %v, want 7", rv)
	}
	if string(ps[0].GetPatchType()) != "application/merge-patch+json" {
		t.Errorf("patch type %s", ps[0].GetPatchType())
	}
}

func TestUpdateTaintsRetriesOnConflict(t *testing.T) {
	client := fake.NewSimpleClientset(coretest.MakeSeed("s1").ResourceVersion("7").Obj())
	conflicts := 1
	client.PrependReactor("patch", "seeds", func(clienttesting.Action) (bool, runtime.Object, error) {
		if conflicts > 0 {
			conflicts--
			return true, nil, apierrors.NewConflict(schema.GroupResource{Group: "core.graft.dev", Resource: "seeds"}, "s1", nil)
		}
		return false, nil, nil
	})
	if _, _, err := UpdateTaints(context.Background(), garden.NewGraft(client), "s1", DryRunNone, addA); err != nil {
		t.Fatalf("Update: %v", err)
	}
	gets := 0
	for _, a := range client.Actions() {
		if a.GetVerb() == "get" {
			gets++
		}
	}
	if gets != 2 || len(patches(client)) != 2 {
		t.Errorf("got %d gets and %d patches, want a re-read and a second patch after the conflict", gets, len(patches(client)))
	}
	live, _ := client.CoreV1alpha1().Seeds().Get(context.Background(), "s1", metav1.GetOptions{})
	if helper.FormatTaints(live.Spec.Taints, ",") != "a:NoSchedule" {
		t.Errorf("live taints %s", helper.FormatTaints(live.Spec.Taints, ","))
	}
}

func TestUpdateTaintsClientDryRunSendsNothing(t *testing.T) {
	client := fake.NewSimpleClientset(coretest.MakeSeed("s1").ResourceVersion("7").Obj())
	got, changed, err := UpdateTaints(context.Background(), garden.NewGraft(client), "s1", DryRunClient, addA)
	if err != nil || !changed || helper.FormatTaints(got.Spec.Taints, ",") != "a:NoSchedule" {
		t.Fatalf("Update: %v %v %v", got, changed, err)
	}
	if len(patches(client)) != 0 {
		t.Errorf("client dry run sent a patch")
	}
}

func TestUpdateTaintsServerDryRunSetsDryRunAll(t *testing.T) {
	client := fake.NewSimpleClientset(coretest.MakeSeed("s1").ResourceVersion("7").Obj())
	if _, _, err := UpdateTaints(context.Background(), garden.NewGraft(client), "s1", DryRunServer, addA); err != nil {
		t.Fatal(err)
	}
	ps := patches(client)
	if len(ps) != 1 {
		t.Fatalf("got %d patches", len(ps))
	}
	opts := ps[0].(clienttesting.PatchActionImpl).PatchOptions
	if len(opts.DryRun) != 1 || opts.DryRun[0] != metav1.DryRunAll {
		t.Errorf("patch options %+v, want dryRun=All", opts)
	}
}

func TestUpdateTaintsRemovingLastTaintSendsNull(t *testing.T) {
	data, err := garden.Graft.TaintsPatch(&corev1alpha1.Seed{ObjectMeta: metav1.ObjectMeta{ResourceVersion: "3"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != `{"metadata":{"resourceVersion":"3"},"spec":{"taints":null}}` {
		t.Errorf("patch %s", data)
	}
}
