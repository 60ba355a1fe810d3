package poolscaler

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/tools/record"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1"

	"github.com/graft-dev/graft/pkg/capacity/forecast"
	"github.com/graft-dev/graft/pkg/controlplane/gardenerlandscape"
	"github.com/graft-dev/graft/pkg/coretest"
	"github.com/graft-dev/graft/pkg/garden"
)

func managedSeedSet(replicas int64) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "seedmanagement.gardener.cloud/v1alpha1", "kind": "ManagedSeedSet",
		"metadata": map[string]any{"name": "blue", "namespace": "garden", "resourceVersion": "5"},
		"spec":     map[string]any{"replicas": replicas},
	}}
}

// scaler is the Reconciler of one pool over a fake Gardener holding the set
// and one full ready seed of it.
func scaler(t *testing.T, dryRun bool) (*Reconciler, Pool, *record.FakeRecorder, *dynamicfake.FakeDynamicClient) {
	t.Helper()
	seed := coretest.MakeSeed("blue-0").Allocatable(2).Label("pool", "blue").Obj()
	dyn := coretest.FakeGardener(gardenerlandscape.MustSeed(seed, "dns"), managedSeedSet(1))
	client, err := garden.New(garden.Gardener, nil, dyn)
	if err != nil {
		t.Fatal(err)
	}
	recorder := record.NewFakeRecorder(10)
	r := New(Options{Sets: garden.NewManagedSeedSets(dyn), Client: client, FieldManager: "graft-capacity-annotator", Recorder: recorder, Metrics: noMetrics{}, Horizon: time.Hour})
	m := &configv1alpha1.ManagedSeedSetScaling{Name: "blue", MaxReplicas: 3, DryRun: dryRun}
	m.Default()
	return r, Pool{Name: "blue", Selector: labels.SelectorFromSet(labels.Set{"pool": "blue"}), Set: m}, recorder, dyn
}

// noMetrics publishes nothing.
type noMetrics struct{}

func (noMetrics) SetSet(string, int32, *configv1alpha1.ManagedSeedSetScaling, bool) {}
func (noMetrics) Stepped(string, string, string)                                    {}

func events(r *record.FakeRecorder) []string {
	var out []string
	for {
		select {
		case e := <-r.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}

// A dry run decides and says so on the set, and writes nothing; the same
// decision for real raises spec.replicas by one and records when.
func TestScaleDryRunWritesNothing(t *testing.T) {
	waiting := forecast.Summary{Pool: forecast.Pool{Kind: forecast.KindPool, Name: "blue"}, Allocatable: 2, Usage: 2,
		Forecast: forecast.Forecast{Waiting: 1, Full: true}}
	usage := map[string]int{"blue-0": 2}
	seeds := []*v1alpha1.Seed{coretest.MakeSeed("blue-0").Allocatable(2).Label("pool", "blue").Obj()}
	ctx := context.Background()

	now := time.Now()
	r, p, recorder, dyn := scaler(t, true)
	if err := r.Reconcile(ctx, p, waiting, seeds, usage, now); err != nil {
		t.Fatal(err)
	}
	if got := events(recorder); len(got) != 1 || !strings.HasPrefix(got[0], "Normal WouldScale Dry run: would scale out from 1 to 2 replicas: 1 shoot waits") {
		t.Errorf("events %q, want one WouldScale", got)
	}
	// The next period decides the same: nothing more is said.
	if err := r.Reconcile(ctx, p, waiting, seeds, usage, now); err != nil {
		t.Fatal(err)
	}
	if got := events(recorder); len(got) != 0 {
		t.Errorf("events %q on the same dry-run decision again, want none", got)
	}
	set, err := dyn.Resource(garden.ManagedSeedSetResource).Namespace("garden").Get(ctx, "blue", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n, _, _ := unstructured.NestedInt64(set.Object, "spec", "replicas"); n != 1 || set.GetAnnotations()[AnnotationScaledAt] != "" {
		t.Errorf("dry run wrote the set: replicas %d, annotations %v", n, set.GetAnnotations())
	}

	r, p, recorder, dyn = scaler(t, false)
	if err := r.Reconcile(ctx, p, waiting, seeds, usage, now); err != nil {
		t.Fatal(err)
	}
	if got := events(recorder); len(got) != 1 || !strings.HasPrefix(got[0], "Normal ScaledOut Scale out from 1 to 2 replicas") {
		t.Errorf("events %q, want one ScaledOut", got)
	}
	set, err = dyn.Resource(garden.ManagedSeedSetResource).Namespace("garden").Get(ctx, "blue", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n, _, _ := unstructured.NestedInt64(set.Object, "spec", "replicas"); n != 2 || set.GetAnnotations()[AnnotationScaled] != "out 1 to 2" {
		t.Errorf("replicas %d, annotations %v; want 2 and the step recorded", n, set.GetAnnotations())
	}
}
