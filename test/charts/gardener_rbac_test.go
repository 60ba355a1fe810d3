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
)

// TestDaemonChartsOnGardener: with config.api core.gardener.cloud the
// graft-descheduler and graft-capacity-annotator charts render a
// configuration their binaries load with that API, and a ClusterRole that
// grants exactly what each does there and nothing on core.graft.dev (the
// descheduler: informers, migrations as patches of shoots/binding, the
// timeAdded stamp; the annotator: informers and the not-ready taints, no
// status). A value of config.api neither knows is refused at render time.
func TestDaemonChartsOnGardener(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, tc := range []struct {
		chart string
		load  func([]byte) (configv1alpha1.SchedulerAPI, error)
		want  map[string][]string
	}{
		{
			chart: "graft-descheduler",
			load: func(data []byte) (configv1alpha1.SchedulerAPI, error) {
				cfg, err := component.DecodeConfig[*configv1alpha1.DeschedulerConfiguration](data)
				if err != nil {
					return "", err
				}
				return cfg.API, nil
			},
			want: map[string][]string{
				"core.gardener.cloud/shoots":                  {"get", "list", "watch"},
				"core.gardener.cloud/shoots/binding":          {"patch"},
				"core.gardener.cloud/seeds":                   {"get", "list", "patch", "watch"},
				"core.gardener.cloud/cloudprofiles":           {"list", "watch"},
				"core.gardener.cloud/namespacedcloudprofiles": {"list", "watch"},
				"core.gardener.cloud/projects":                {"list", "watch"},
				"/events":                                     {"create", "patch"},
			},
		},
		{
			chart: "graft-capacity-annotator",
			load: func(data []byte) (configv1alpha1.SchedulerAPI, error) {
				cfg, err := component.DecodeConfig[*configv1alpha1.CapacityAnnotatorConfiguration](data)
				if err != nil {
					return "", err
				}
				return cfg.API, nil
			},
			want: map[string][]string{
				"core.gardener.cloud/seeds":  {"get", "list", "patch", "watch"},
				"core.gardener.cloud/shoots": {"list", "watch"},
				"/events":                    {"create", "patch"},
			},
		},
	} {
		t.Run(tc.chart, func(t *testing.T) {
			objs, err := Template(ctx, tc.chart, TemplateOptions{Release: "graft", Namespace: "chart-gardener", Set: []string{"config.api=core.gardener.cloud"}})
			if err != nil {
				t.Fatal(err)
			}
			r := index(t, objs)
			cm := one[corev1.ConfigMap](t, r, "ConfigMap")
			api, err := tc.load([]byte(cm.Data["config.yaml"]))
			if err != nil || api != configv1alpha1.APIGardener {
				t.Fatalf("rendered config: api %q, %v\n%s", api, err, cm.Data["config.yaml"])
			}
			cr := one[rbacv1.ClusterRole](t, r, "ClusterRole")
			checkNoWildcards(t, "ClusterRole", cr.Rules)
			got := map[string][]string{}
			for _, rule := range cr.Rules {
				for _, g := range rule.APIGroups {
					for _, res := range rule.Resources {
						got[g+"/"+res] = append(got[g+"/"+res], rule.Verbs...)
					}
				}
			}
			for key, verbs := range got {
				slices.Sort(verbs)
				if !slices.Equal(verbs, tc.want[key]) {
					t.Errorf("ClusterRole grants %v on %s, want %v", verbs, key, tc.want[key])
				}
			}
			for key := range tc.want {
				if _, ok := got[key]; !ok {
					t.Errorf("ClusterRole grants nothing on %s", key)
				}
			}
			_, err = TemplateRaw(ctx, tc.chart, TemplateOptions{Set: []string{"config.api=core.gardener.cloud/v1beta1"}})
			if err == nil || !strings.Contains(err.Error(), `config.api "core.gardener.cloud/v1beta1": `+tc.chart+` works on core.graft.dev or core.gardener.cloud`) {
				t.Errorf("helm template with config.api core.gardener.cloud/v1beta1: %v, want a refusal naming the two groups", err)
			}
		})
	}
}
