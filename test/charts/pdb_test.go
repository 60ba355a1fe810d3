//go:build integration

package charts

import (
	"context"
	"strconv"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// TestPodDisruptionBudget renders each component chart with one and with two
// replicas and checks that its PodDisruptionBudget lets a node drain evict a
// replica (one replica must not block a drain) but never the leader and its
// standby together.
func TestPodDisruptionBudget(t *testing.T) {
	ctx := context.Background()
	for _, c := range components {
		for _, replicas := range []int32{1, 2} {
			t.Run(c.chart+"/replicas="+strconv.Itoa(int(replicas)), func(t *testing.T) {
				set := []string{"replicaCount=" + strconv.Itoa(int(replicas))}
				objs, err := Template(ctx, c.chart, TemplateOptions{Set: set})
				if err != nil {
					t.Fatal(err)
				}
				r := index(t, objs)
				dep := one[appsv1.Deployment](t, r, "Deployment")
				pdb := one[policyv1.PodDisruptionBudget](t, r, "PodDisruptionBudget")
				sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
				if err != nil || !sel.Matches(labels.Set(dep.Spec.Template.Labels)) {
					t.Errorf("PDB selector %v does not match the pods (labels %v)", pdb.Spec.Selector, dep.Spec.Template.Labels)
				}
				if pdb.Spec.MinAvailable != nil || pdb.Spec.MaxUnavailable == nil || *pdb.Spec.MaxUnavailable != intstr.FromInt32(1) {
					t.Errorf("PDB spec %+v, want maxUnavailable 1 only", pdb.Spec)
				}
				allowed := disruptionsAllowed(t, pdb, replicas)
				if allowed < 1 {
					t.Errorf("with %d healthy replica(s) the PDB allows %d disruptions: a node drain would block", replicas, allowed)
				}
				if replicas > 1 && allowed >= replicas {
					t.Errorf("with %d healthy replicas the PDB allows %d disruptions: a drain could evict leader and standby together", replicas, allowed)
				}
			})
		}
		// An explicit minAvailable replaces maxUnavailable (the API takes one).
		t.Run(c.chart+"/minAvailable", func(t *testing.T) {
			objs, err := Template(ctx, c.chart, TemplateOptions{Set: []string{"replicaCount=3", "podDisruptionBudget.minAvailable=2"}})
			if err != nil {
				t.Fatal(err)
			}
			pdb := one[policyv1.PodDisruptionBudget](t, index(t, objs), "PodDisruptionBudget")
			if pdb.Spec.MaxUnavailable != nil || pdb.Spec.MinAvailable == nil || *pdb.Spec.MinAvailable != intstr.FromInt32(2) {
				t.Errorf("PDB spec %+v, want minAvailable 2 only", pdb.Spec)
			}
		})
	}
}

// disruptionsAllowed is what the disruption controller would publish in
// status.disruptionsAllowed for a PDB over replicas healthy pods.
func disruptionsAllowed(t *testing.T, pdb *policyv1.PodDisruptionBudget, replicas int32) int32 {
	t.Helper()
	var desiredHealthy int32
	switch {
	case pdb.Spec.MaxUnavailable != nil:
		maxUnavailable, err := intstr.GetScaledValueFromIntOrPercent(pdb.Spec.MaxUnavailable, int(replicas), true)
		if err != nil {
			t.Fatalf("maxUnavailable %v: %v", pdb.Spec.MaxUnavailable, err)
		}
		desiredHealthy = max(0, replicas-int32(maxUnavailable))
	case pdb.Spec.MinAvailable != nil:
		minAvailable, err := intstr.GetScaledValueFromIntOrPercent(pdb.Spec.MinAvailable, int(replicas), true)
		if err != nil {
			t.Fatalf("minAvailable %v: %v", pdb.Spec.MinAvailable, err)
		}
		desiredHealthy = int32(minAvailable)
	default:
		t.Fatalf("PDB spec %+v sets neither minAvailable nor maxUnavailable", pdb.Spec)
	}
	return max(0, replicas-desiredHealthy)
}
