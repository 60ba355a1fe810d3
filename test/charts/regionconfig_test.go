//go:build integration

package charts

import (
	"slices"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
)

// regionConfigNamespace is the namespace a component reads region ConfigMaps
// from, and false for a component that reads none.
func regionConfigNamespace(cfg configv1alpha1.Configuration) (string, bool) {
	switch c := cfg.(type) {
	case *configv1alpha1.SchedulerConfiguration:
		return c.RegionConfigNamespace, true
	case *configv1alpha1.DeschedulerConfiguration:
		return c.RegionConfigNamespace, true
	}
	return "", false
}

// named converts the rendered object of a kind with the given name suffix;
// nil when there is none.
func named[T any](t *testing.T, r map[string][]*unstructured.Unstructured, kind, suffix string) *T {
	t.Helper()
	var found *T
	for _, o := range r[kind] {
		if !strings.HasSuffix(o.GetName(), suffix) {
			continue
		}
		if found != nil {
			t.Fatalf("rendered more than one %s named *%s", kind, suffix)
		}
		found = new(T)
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, found); err != nil {
			t.Fatalf("converting the %s %s: %v", kind, o.GetName(), err)
		}
	}
	return found
}

// checkRegionConfigRBAC: a component that reads region ConfigMaps may list
// and watch ConfigMaps in the one namespace its config names and nowhere
// else; one that reads none gets no access to ConfigMaps at all.
func checkRegionConfigRBAC(t *testing.T, r map[string][]*unstructured.Unstructured, cfg configv1alpha1.Configuration, ns, sa string) {
	t.Helper()
	cr := one[rbacv1.ClusterRole](t, r, "ClusterRole")
	for _, rule := range cr.Rules {
		if slices.Contains(rule.Resources, "configmaps") {
			t.Errorf("ClusterRole grants %+v: ConfigMaps of every namespace", rule)
		}
	}
	role := named[rbacv1.Role](t, r, "Role", "-region-config")
	rb := named[rbacv1.RoleBinding](t, r, "RoleBinding", "-region-config")
	regionNS, reads := regionConfigNamespace(cfg)
	if !reads {
		if role != nil || rb != nil {
			t.Errorf("a component that reads no region ConfigMaps gets Role %v and RoleBinding %v", role, rb)
		}
		return
	}
	if role == nil || rb == nil {
		t.Fatalf("no region-config Role (%v) or RoleBinding (%v)", role, rb)
	}
	if role.Namespace != regionNS || rb.Namespace != regionNS {
		t.Errorf("region-config Role in %s, RoleBinding in %s; the config reads region ConfigMaps from %s", role.Namespace, rb.Namespace, regionNS)
	}
	if rb.RoleRef.Kind != "Role" || rb.RoleRef.Name != role.Name || !boundTo(rb.Subjects, ns, sa) {
		t.Errorf("RoleBinding %+v does not bind Role %s to %s/%s", rb, role.Name, ns, sa)
	}
	checkNoWildcards(t, "Role", role.Rules)
	want := []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"list", "watch"}}}
	if len(role.Rules) != 1 || !slices.Equal(role.Rules[0].APIGroups, want[0].APIGroups) || !slices.Equal(role.Rules[0].Resources, want[0].Resources) ||
		!slices.Equal(role.Rules[0].Verbs, want[0].Verbs) || len(role.Rules[0].ResourceNames) != 0 {
		t.Errorf("region-config Role grants %+v, want %+v", role.Rules, want)
	}
}
