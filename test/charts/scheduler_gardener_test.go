//go:build integration

package charts

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/pkg/component"
	"github.com/graft-dev/graft/test/framework"
)

// TestSchedulerChartOnGardener: with config.api core.gardener.cloud the
// rendered config makes graft-scheduler work on Gardener's API, and the
// ClusterRole grants exactly what it does there (informers on Shoots, Seeds
// and CloudProfiles, reads of a Shoot and a Seed, bindings as patches of
// shoots/binding, lastOperation through shoots/status, Events) and nothing on
// core.graft.dev. The objects pass a server-side dry run. A value of
// config.api the scheduler does not know is refused at render time.
func TestSchedulerChartOnGardener(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const ns = "chart-scheduler-gardener"
	objs, err := Template(ctx, "graft-scheduler", TemplateOptions{Release: "graft", Namespace: ns,
		Set: []string{"config.api=core.gardener.cloud", "config.schedulerName=graft-scheduler"}})
	if err != nil {
		t.Fatal(err)
	}
	r := index(t, objs)
	cm := one[corev1.ConfigMap](t, r, "ConfigMap")
	cfg, err := component.DecodeConfig[*configv1alpha1.SchedulerConfiguration]([]byte(cm.Data["config.yaml"]))
	if err != nil {
		t.Fatalf("rendered config does not load: %v\n%s", err, cm.Data["config.yaml"])
	}
	if cfg.API != configv1alpha1.APIGardener || cfg.SchedulerName != "graft-scheduler" {
		t.Errorf("config api %q, schedulerName %q; want core.gardener.cloud and graft-scheduler", cfg.API, cfg.SchedulerName)
	}

	cr := one[rbacv1.ClusterRole](t, r, "ClusterRole")
	checkNoWildcards(t, "ClusterRole", cr.Rules)
	want := map[string][]string{
		"core.gardener.cloud/shoots":                  {"get", "list", "watch"},
		"core.gardener.cloud/shoots/binding":          {"patch"},
		"core.gardener.cloud/shoots/status":           {"patch"},
		"core.gardener.cloud/seeds":                   {"get", "list", "watch"},
		"core.gardener.cloud/cloudprofiles":           {"list", "watch"},
		"core.gardener.cloud/projects":                {"list", "watch"},
		"core.gardener.cloud/namespacedcloudprofiles": {"list", "watch"},
		"/events": {"create", "patch"},
	}
	got := map[string][]string{}
	for _, rule := range cr.Rules {
		for _, g := range rule.APIGroups {
			if g == "core.graft.dev" {
				t.Errorf("ClusterRole on Gardener grants %+v on graft's API", rule)
			}
			for _, res := range rule.Resources {
				got[g+"/"+res] = append(got[g+"/"+res], rule.Verbs...)
			}
		}
	}
	for key, verbs := range got {
		slices.Sort(verbs)
		w := slices.Clone(want[key])
		slices.Sort(w)
		if !slices.Equal(verbs, w) {
			t.Errorf("ClusterRole grants %v on %s, want %v", verbs, key, w)
		}
	}
	for key := range want {
		if _, ok := got[key]; !ok {
			t.Errorf("ClusterRole grants nothing on %s", key)
		}
	}

	env := framework.Shared(t)
	applier, err := NewApplier(env.Config())
	if err != nil {
		t.Fatal(err)
	}
	ensureNamespace(ctx, t, env.KubeClient(), ns)
	ensureNamespace(ctx, t, env.KubeClient(), "garden")
	var apply = objs[:0:0]
	for _, o := range objs {
		if o.GetKind() != "ServiceMonitor" {
			apply = append(apply, o)
		}
	}
	if err := applier.Apply(ctx, apply, true); err != nil {
		t.Fatalf("server-side dry run: %v", err)
	}

	_, err = TemplateRaw(ctx, "graft-scheduler", TemplateOptions{Set: []string{"config.api=core.gardener.cloud/v1beta1"}})
	if err == nil || !strings.Contains(err.Error(), `config.api "core.gardener.cloud/v1beta1": graft-scheduler works on core.graft.dev or core.gardener.cloud`) {
		t.Errorf("helm template with config.api core.gardener.cloud/v1beta1: %v, want a refusal naming the two groups", err)
	}
}
