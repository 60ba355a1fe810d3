package algorithm_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/algorithm"
	"github.com/graft-dev/graft/pkg/coretest"
)

func TestLiveMigrationBlocker(t *testing.T) {
	ha := func() *coretest.ShootWrapper {
		return coretest.MakeShoot("dev", "s").FailureTolerance(v1alpha1.FailureToleranceTypeNode)
	}
	seed := func(name, typ, region, version string) *v1alpha1.Seed {
		return coretest.MakeSeed(name).Provider(typ, region).AgentVersion(version).Obj()
	}
	cm := func(threshold string, data map[string]string) *algorithm.RegionConfig {
		c := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "garden", Name: "regions"}, Data: data}
		if threshold != "" {
			c.Annotations = map[string]string{v1alpha1.AnnotationInterRegionDistanceThreshold: threshold}
		}
		rc, _ := algorithm.ParseRegionConfig(c)
		return rc
	}
	near := map[string]string{"eu-west-1": "eu-central-1: 120\nus-east-1: 800"}
	from := seed("a", "aws", "eu-west-1", "v1.150.0")
	for _, tc := range []struct {
		name    string
		shoot   *v1alpha1.Shoot
		to      *v1alpha1.Seed
		regions *algorithm.RegionConfig
		want    string
	}{
		{"same region", ha().Obj(), seed("b", "aws", "eu-west-1", "v1.150.0"), nil, ""},
		{"not highly available", coretest.MakeShoot("dev", "s").Obj(), seed("b", "aws", "eu-west-1", "v1.150.0"), nil, "not highly available"},
		{"hibernated", ha().Hibernated().Obj(), seed("b", "aws", "eu-west-1", "v1.150.0"), nil, "hibernated or waking up"},
		{"waking up", ha().With(func(s *v1alpha1.Shoot) { s.Status.IsHibernated = true }).Obj(), seed("b", "aws", "eu-west-1", "v1.150.0"), nil, "hibernated or waking up"},
		{"other provider", ha().Obj(), seed("b", "gcp", "eu-west-1", "v1.150.0"), nil, "provider types differ (aws, gcp)"},
		{"other gardenlet", ha().Obj(), seed("b", "aws", "eu-west-1", "v1.149.3"), nil, "different gardenlet versions (v1.150.0, v1.149.3)"},
		{"no version", ha().Obj(), seed("b", "aws", "eu-west-1", ""), nil, "reports no gardenlet version"},
		{"near region", ha().Obj(), seed("b", "aws", "eu-central-1", "v1.150.0"), cm("", near), ""},
		{"far region", ha().Obj(), seed("b", "aws", "us-east-1", "v1.150.0"), cm("", near), "distance from eu-west-1 to us-east-1 is 800, beyond the threshold 180"},
		{"far region, higher threshold", ha().Obj(), seed("b", "aws", "us-east-1", "v1.150.0"), cm("1000", near), ""},
		{"far region allowed", ha().Annotation(v1alpha1.AnnotationAllowDistantRegions, "True").Obj(), seed("b", "aws", "us-east-1", "v1.150.0"), cm("", near), ""},
		{"no region ConfigMap", ha().Obj(), seed("b", "aws", "eu-central-1", "v1.150.0"), nil, "no region ConfigMap"},
		{"region not listed", ha().Obj(), seed("b", "aws", "ap-south-1", "v1.150.0"), cm("", near), "gives no distance from eu-west-1 to ap-south-1"},
		{"bad threshold", ha().Obj(), seed("b", "aws", "eu-central-1", "v1.150.0"), cm("far", near), `inter-region-distance-threshold="far" is not an integer`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := algorithm.LiveMigrationBlocker(tc.shoot, from, tc.to, tc.regions)
			if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
				t.Errorf("blocker %q, want %q", got, tc.want)
			}
		})
	}
}
