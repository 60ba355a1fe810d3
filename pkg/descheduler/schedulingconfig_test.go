package descheduler

import (
	"context"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/pkg/schedulingconfig"
)

// schedulerLease is graft-scheduler's Lease with value published on it (none
// when empty).
func schedulerLease(value string) *coordinationv1.Lease {
	l := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: "garden", Name: "graft-scheduler"}}
	if value != "" {
		l.Annotations = map[string]string{schedulingconfig.Annotation: value}
	}
	return l
}

const publishedWeighted = `{"version":"v1","schedulerName":"default-scheduler","strategy":"MinimalDistance","scoreWeights":{"LeastAllocated":3},"regionConfigNamespace":"garden-ops"}`

func defaultedConfig(mutate func(*configv1alpha1.DeschedulerConfiguration)) *configv1alpha1.DeschedulerConfiguration {
	cfg := &configv1alpha1.DeschedulerConfiguration{}
	if mutate != nil {
		mutate(cfg)
	}
	cfg.Default()
	return cfg
}

// Unset, the strategy, weights and region namespace are the scheduler's.
func TestResolveTakesTheSchedulersPublishedConfiguration(t *testing.T) {
	kube := kubefake.NewSimpleClientset(schedulerLease(publishedWeighted))
	cfg, err := resolveSchedulingConfiguration(t.Context(), defaultedConfig(nil), kube.CoordinationV1(), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Strategy != configv1alpha1.StrategyMinimalDistance || cfg.RegionConfigNamespace != "garden-ops" ||
		cfg.ScoreWeights == nil || ptr.Deref(cfg.ScoreWeights.LeastAllocated, -1) != 3 || cfg.ScoreWeights.MinimalDistance != nil {
		t.Errorf("resolved strategy %s, weights %+v, regionConfigNamespace %s; want the published MinimalDistance, LeastAllocated=3, garden-ops",
			cfg.Strategy, cfg.ScoreWeights, cfg.RegionConfigNamespace)
	}
}

// An explicit setting wins, and its difference from the scheduler's is said.
func TestExplicitSettingsOverrideWithAWarning(t *testing.T) {
	p, err := schedulingconfig.Decode(publishedWeighted)
	if err != nil {
		t.Fatal(err)
	}
	cfg := defaultedConfig(func(c *configv1alpha1.DeschedulerConfiguration) {
		c.Strategy = configv1alpha1.StrategySameRegion
		c.RegionConfigNamespace = "garden"
	})
	out, warnings, err := fromPublished(cfg, p)
	if err != nil {
		t.Fatal(err)
	}
	if out.Strategy != configv1alpha1.StrategySameRegion || out.RegionConfigNamespace != "garden" {
		t.Errorf("explicit settings not kept: strategy %s, regionConfigNamespace %s", out.Strategy, out.RegionConfigNamespace)
	}
	want := []string{
		"requireFit asks with SameRegion, score weights LeastAllocated=3, graft-scheduler decides with MinimalDistance, score weights LeastAllocated=3",
		"regionConfigNamespace garden, graft-scheduler's is garden-ops",
	}
	if strings.Join(warnings, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings %q, want %q", warnings, want)
	}

	same := defaultedConfig(func(c *configv1alpha1.DeschedulerConfiguration) {
		c.Strategy = configv1alpha1.StrategyMinimalDistance
		c.ScoreWeights = &configv1alpha1.ScoreWeights{LeastAllocated: ptr.To[int32](3)}
	})
	if _, warnings, _ := fromPublished(same, p); len(warnings) != 0 {
		t.Errorf("settings equal to the scheduler's warned: %q", warnings)
	}
}

// Without a published configuration the descheduler waits, then fails saying
// what to do; an unreadable one fails at once; with every setting its own it
// needs none.
func TestResolveWithoutAUsablePublishedConfiguration(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lease *coordinationv1.Lease
		want  string
	}{
		{"no Lease", nil, "published no scheduling configuration within 50ms"},
		{"no annotation", schedulerLease(""), "has no scheduler.graft.dev/scheduling-configuration annotation"},
		{"another version", schedulerLease(`{"version":"v2","strategy":"SameRegion"}`), `is invalid: version "v2", this build reads "v1"`},
		{"an older scheduler", schedulerLease(`{"version":"v1","strategy":"SameRegion"}`), "publishes no regionConfigNamespace"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kube := kubefake.NewSimpleClientset()
			if tc.lease != nil {
				kube = kubefake.NewSimpleClientset(tc.lease)
			}
			_, err := resolveSchedulingConfiguration(context.Background(), defaultedConfig(nil), kube.CoordinationV1(), 50*time.Millisecond)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
			complete := defaultedConfig(func(c *configv1alpha1.DeschedulerConfiguration) {
				c.Strategy, c.RegionConfigNamespace = configv1alpha1.StrategySameRegion, "garden"
				c.ScoreWeights = &configv1alpha1.ScoreWeights{}
			})
			if _, err := resolveSchedulingConfiguration(context.Background(), complete, kube.CoordinationV1(), 50*time.Millisecond); err != nil {
				t.Errorf("a configuration with every setting of its own: %v", err)
			}
		})
	}
}

// defaultResolved defaults cfg and gives it the scheduling configuration a
// graft-scheduler with its defaults publishes (SameRegion, no weights, region
// ConfigMaps in garden), as ResolveSchedulingConfiguration does before New.
func defaultResolved(cfg *configv1alpha1.DeschedulerConfiguration) {
	cfg.Default()
	if cfg.Strategy == "" {
		cfg.Strategy = configv1alpha1.StrategySameRegion
	}
	if cfg.RegionConfigNamespace == "" {
		cfg.RegionConfigNamespace = "garden"
	}
}

// An API server that cannot answer yet (restarting, or its RBAC caches not
// warm) is waited out, as a Lease not yet published is: the chaos run
// restarts the API server while descheduler replicas start.
func TestResolveWaitsOutAnAPIServerThatCannotAnswerYet(t *testing.T) {
	kube := kubefake.NewSimpleClientset(schedulerLease(publishedWeighted))
	refusals := 0
	kube.PrependReactor("get", "leases", func(clienttesting.Action) (bool, runtime.Object, error) {
		if refusals < 2 {
			refusals++
			return true, nil, apierrors.NewServiceUnavailable("the API server is starting")
		}
		return false, nil, nil
	})
	cfg, err := resolveSchedulingConfiguration(t.Context(), defaultedConfig(nil), kube.CoordinationV1(), time.Minute)
	if err != nil {
		t.Fatalf("resolve after %d refusals: %v", refusals, err)
	}
	if refusals != 2 || cfg.Strategy != configv1alpha1.StrategyMinimalDistance {
		t.Errorf("after %d refusals resolved strategy %q, want MinimalDistance after 2", refusals, cfg.Strategy)
	}
}
