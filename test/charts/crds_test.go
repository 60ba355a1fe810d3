//go:build integration

package charts

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/graft-dev/graft/pkg/controlplane"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/graft-dev/graft/test/framework"
)

// TestCRDChartAdmissionPolicies renders graft-crds' admission policies with
// several sets of values and checks them against what test/framework installs
// for the same identities (the policies come from the same files; the
// bindings and the parameter ConfigMap are written twice and must agree), then
// applies them with a server-side dry run.
func TestCRDChartAdmissionPolicies(t *testing.T) {
	env := framework.Shared(t)
	ctx := context.Background()
	defaults, err := controlplane.ChartSeedAssigners()
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"system:serviceaccount:graft-system:graft-scheduler", "system:serviceaccount:graft-system:graft-descheduler"}; !slices.Equal(defaults.UserNames(), want) ||
		!slices.Equal(defaults.Groups, []string{"system:masters"}) {
		t.Errorf("default seed assigners %v, groups %v; want %v and [system:masters] (the README's installation)", defaults.UserNames(), defaults.Groups, want)
	}
	tolerations, err := controlplane.ChartToleratedKeys()
	if err != nil {
		t.Fatal(err)
	}
	if got := tolerations.Namespaces["garden"]; !slices.Contains(got, "seed.gardener.cloud/unschedulable") || !slices.Equal(tolerations.Default, []string{"*"}) {
		t.Errorf("default tolerated keys %+v; want * by default and the system taints in garden", tolerations)
	}
	custom := controlplane.SeedAssigners{
		ServiceAccounts: []controlplane.ServiceAccountRef{{Namespace: "graft", Name: "scheduler"}, {Namespace: "graft", Name: "second-scheduler"}},
		Groups:          []string{"system:masters", "oidc:garden-operators"},
		Users:           []string{"breakglass@example.com"},
	}
	applier, err := NewApplier(env.Config())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		namespace string
		set       []string
		setJSON   []string
		// want is nil when no policy is expected.
		want *controlplane.AdmissionOptions
		// wantKinds are the rendered kinds besides the CRDs, sorted.
		wantKinds []string
	}{
		{
			name: "default", namespace: "graft-system",
			want:      &controlplane.AdmissionOptions{Namespace: "graft-system", Assigners: defaults, Tolerations: tolerations, GardenToleration: true},
			wantKinds: []string{"ConfigMap", "ConfigMap", "MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding", "ValidatingAdmissionPolicyBinding", "ValidatingAdmissionPolicyBinding", "ValidatingAdmissionPolicyBinding", "ValidatingAdmissionPolicyBinding"},
		},
		{
			name: "custom identities, API server without MutatingAdmissionPolicy", namespace: "graft",
			set: []string{"admissionPolicies.protectedTaint.gardenToleration=false", "commonLabels.team=platform"},
			setJSON: []string{
				`admissionPolicies.seedAssignment.serviceAccounts=[{"namespace":"graft","name":"scheduler"},{"namespace":"graft","name":"second-scheduler"}]`,
				`admissionPolicies.seedAssignment.groups=["system:masters","oidc:garden-operators"]`,
				`admissionPolicies.seedAssignment.users=["breakglass@example.com"]`,
			},
			want:      &controlplane.AdmissionOptions{Namespace: "graft", Assigners: custom, Tolerations: tolerations},
			wantKinds: []string{"ConfigMap", "ConfigMap", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding", "ValidatingAdmissionPolicyBinding", "ValidatingAdmissionPolicyBinding", "ValidatingAdmissionPolicyBinding", "ValidatingAdmissionPolicyBinding"},
		},
		{
			name: "policies off", namespace: "graft-system",
			set: []string{"admissionPolicies.protectedTaint.enabled=false", "admissionPolicies.seedAssignment.enabled=false",
				"admissionPolicies.shootTenancy.enabled=false", "admissionPolicies.shootCloudProfile.enabled=false",
				"admissionPolicies.shootPinnedZones.enabled=false"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := Template(ctx, "graft-crds", TemplateOptions{Namespace: tc.namespace, Set: tc.set, SetJSON: tc.setJSON})
			if err != nil {
				t.Fatal(err)
			}
			var kinds []string
			for _, o := range objs {
				kinds = append(kinds, o.GetKind())
			}
			slices.Sort(kinds)
			if !slices.Equal(kinds, tc.wantKinds) {
				t.Fatalf("rendered %v, want %v", kinds, tc.wantKinds)
			}
			if tc.want == nil {
				return
			}
			want, err := controlplane.AdmissionObjects(*tc.want)
			if err != nil {
				t.Fatal(err)
			}
			if len(want) != len(objs) {
				t.Fatalf("chart renders %d objects, test/framework builds %d", len(objs), len(want))
			}
			for _, w := range want {
				wm := w.(metav1.Object)
				kind := fmt.Sprintf("%T", w)
				got := findRendered(t, objs, w)
				if got == nil {
					t.Errorf("chart does not render %s %s", kind, wm.GetName())
					continue
				}
				gm := got.(metav1.Object)
				if gm.GetNamespace() != wm.GetNamespace() {
					t.Errorf("%s %s in namespace %q, want %q", kind, wm.GetName(), gm.GetNamespace(), wm.GetNamespace())
				}
				if gm.GetLabels()["app.kubernetes.io/part-of"] != "graft" || gm.GetLabels()["app.kubernetes.io/managed-by"] != "Helm" {
					t.Errorf("%s %s labels %v lack the chart's", kind, wm.GetName(), gm.GetLabels())
				}
				if slices.Contains(tc.set, "commonLabels.team=platform") && gm.GetLabels()["team"] != "platform" {
					t.Errorf("%s %s labels %v lack commonLabels", kind, wm.GetName(), gm.GetLabels())
				}
				if diff := specDiff(got, w); diff != "" {
					t.Errorf("%s %s: the chart and test/framework disagree: %s", kind, wm.GetName(), diff)
				}
			}
			// The parameters as the policy reads them: one entry per line.
			cm := findRendered(t, objs, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: controlplane.SeedAssignersConfigMap}}).(*corev1.ConfigMap)
			if got, want := strings.Split(cm.Data["users"], "\n"), tc.want.Assigners.UserNames(); !slices.Equal(got, want) {
				t.Errorf("users %q, want %q", got, want)
			}
			if got, want := strings.Split(cm.Data["groups"], "\n"), tc.want.Assigners.Groups; !slices.Equal(got, want) {
				t.Errorf("groups %q, want %q", got, want)
			}
			ensureNamespace(ctx, t, env.KubeClient(), tc.namespace)
			if err := applier.Apply(ctx, objs, true); err != nil {
				t.Fatalf("server-side dry run: %v", err)
			}
		})
	}
}

// TestCRDChartRejectsIncompleteServiceAccounts: a ServiceAccount entry
// without namespace or name fails at render time, saying which field.
func TestCRDChartRejectsIncompleteServiceAccounts(t *testing.T) {
	_, err := TemplateRaw(context.Background(), "graft-crds", TemplateOptions{
		SetJSON: []string{`admissionPolicies.seedAssignment.serviceAccounts=[{"name":"graft-scheduler"}]`},
	})
	if err == nil || !strings.Contains(err.Error(), "admissionPolicies.seedAssignment.serviceAccounts[].namespace is required") {
		t.Fatalf("helm template with a ServiceAccount without namespace: %v; want an error naming the field", err)
	}
}

// findRendered converts the rendered object of like's type and name.
func findRendered(t *testing.T, objs []*unstructured.Unstructured, like runtime.Object) runtime.Object {
	t.Helper()
	name := like.(metav1.Object).GetName()
	for _, o := range objs {
		if o.GetName() != name {
			continue
		}
		out := like.DeepCopyObject()
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, out); err != nil {
			continue // same name, other kind
		}
		if fmt.Sprintf("%T", out) == fmt.Sprintf("%T", like) && kindMatches(o.GetKind(), out) {
			return out
		}
	}
	return nil
}

func kindMatches(kind string, obj runtime.Object) bool {
	return strings.HasSuffix(fmt.Sprintf("%T", obj), "."+kind)
}

// specDiff compares what the API server acts on: the spec of a policy or
// binding, the data of a ConfigMap.
func specDiff(got, want runtime.Object) string {
	var g, w any
	switch o := got.(type) {
	case *admissionregistrationv1.ValidatingAdmissionPolicy:
		g, w = o.Spec, want.(*admissionregistrationv1.ValidatingAdmissionPolicy).Spec
	case *admissionregistrationv1.ValidatingAdmissionPolicyBinding:
		g, w = o.Spec, want.(*admissionregistrationv1.ValidatingAdmissionPolicyBinding).Spec
	case *admissionregistrationv1.MutatingAdmissionPolicy:
		g, w = o.Spec, want.(*admissionregistrationv1.MutatingAdmissionPolicy).Spec
	case *admissionregistrationv1.MutatingAdmissionPolicyBinding:
		g, w = o.Spec, want.(*admissionregistrationv1.MutatingAdmissionPolicyBinding).Spec
	case *corev1.ConfigMap:
		g, w = o.Data, want.(*corev1.ConfigMap).Data
	default:
		return fmt.Sprintf("unexpected %T", got)
	}
	if equality.Semantic.DeepEqual(g, w) {
		return ""
	}
	return fmt.Sprintf("chart %+v, framework %+v", g, w)
}
