package drain

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	kubefake "k8s.io/client-go/kubernetes/fake"

	"github.com/graft-dev/client-go/clientset/versioned/fake"

	"github.com/graft-dev/graft/pkg/coretest"
)

// TestDryRunReadsRegionConfigMapsOfOneNamespace: --dry-run decides with the
// region ConfigMaps of --region-config-namespace only (garden by default), as
// graft-scheduler does with its regionConfigNamespace.
func TestDryRunReadsRegionConfigMapsOfOneNamespace(t *testing.T) {
	// By the Levenshtein fallback eu-central-1 is at 2 from eu-west-1 and
	// us-east-1 at 6; the ConfigMaps turn that around.
	regionCM := func(namespace string) *corev1.ConfigMap {
		return coretest.RegionConfigMap(namespace, "regions", coretest.CloudProfileName, map[string]string{"eu-west-1": "us-east-1: 1\n"})
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"project namespace ignored by default", nil, "shoot/ns/s1 would move to seed/near\n"},
		{"flag names the namespace", []string{"--region-config-namespace", "garden-ops"}, "shoot/ns/s1 would move to seed/far\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			graft := fake.NewSimpleClientset(coretest.MakeCloudProfile("aws").Regions("eu-west-1").Obj(), coretest.MakeSeed("a").Obj(), coretest.MakeSeed("near").Region("eu-central-1").Obj(),
				coretest.MakeSeed("far").Region("us-east-1").Obj(), coretest.MakeShoot("ns", "s1").Seed("a").Obj())
			kube := kubefake.NewSimpleClientset(regionCM("ns"), regionCM("garden-ops"))
			args := append([]string{"a", "--dry-run", "--strategy", "MinimalDistance"}, tc.args...)
			out, _, err := run(context.Background(), graft, kube, args...)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out, tc.want) {
				t.Errorf("output:\n%s\nwant a line %q", out, tc.want)
			}
		})
	}
	if _, _, err := run(context.Background(), fake.NewSimpleClientset(), kubefake.NewSimpleClientset(), "a", "--region-config-namespace", "not_a_namespace"); err == nil ||
		!strings.Contains(err.Error(), `invalid --region-config-namespace "not_a_namespace"`) {
		t.Errorf("err = %v, want the namespace refused", err)
	}
}
