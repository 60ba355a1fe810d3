package v1alpha1

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func TestDeschedulerDefaults(t *testing.T) {
	c := &DeschedulerConfiguration{}
	c.Default()
	if got := c.LeaderElection.ResourceName; got != "graft-descheduler" {
		t.Errorf("lease name = %q, want graft-descheduler", got)
	}
	if got := c.LeaderElection.ResourceNamespace; got != "garden" {
		t.Errorf("lease namespace = %q, want garden", got)
	}
	if c.Interval.Duration != time.Minute {
		t.Errorf("interval = %v, want 1m", c.Interval.Duration)
	}
	if !*c.RequireFit || *c.MaxEvictionsPerSeed != 10 || *c.MaxEvictionsTotal != 50 ||
		*c.EvictionRate != 1 || *c.EvictionBurst != 1 || *c.MaxPendingEvicted != 10 || c.ConcurrentEvictions != 4 {
		t.Errorf("safety defaults not applied: %+v", c)
	}
	if len(c.Plugins) != 1 || c.Plugins[0].Name != DeschedulerPluginNoExecuteTaints || !*c.Plugins[0].Enabled {
		t.Errorf("plugins = %+v, want NoExecuteTaints enabled", c.Plugins)
	}
	if errs := c.Validate(); len(errs) > 0 {
		t.Errorf("defaulted configuration is invalid: %v", errs)
	}
}

func TestDeschedulerDefaultsKeepExplicitValues(t *testing.T) {
	c := &DeschedulerConfiguration{
		Interval:          &metav1.Duration{},
		RequireFit:        ptr.To(false),
		MaxPendingEvicted: ptr.To[int32](0),
		EvictionRate:      ptr.To(0.0),
		Plugins: []DeschedulerPlugin{
			{Name: DeschedulerPluginOverCapacity},
			{Name: DeschedulerPluginNoExecuteTaints, Enabled: ptr.To(false)},
		},
	}
	c.Default()
	if c.Interval.Duration != 0 || *c.RequireFit || *c.MaxPendingEvicted != 0 || *c.EvictionRate != 0 {
		t.Errorf("explicit zero values were overwritten: %+v", c)
	}
	if len(c.Plugins) != 2 || !*c.Plugins[0].Enabled || *c.Plugins[1].Enabled {
		t.Errorf("plugins = %+v, want OverCapacity on and NoExecuteTaints off, in that order", c.Plugins)
	}
}

func TestDeschedulerValidation(t *testing.T) {
	c := &DeschedulerConfiguration{
		Interval:            &metav1.Duration{Duration: -time.Second},
		MaxEvictionsPerSeed: ptr.To[int32](-1),
		EvictionRate:        ptr.To(-2.0),
		EvictionBurst:       ptr.To[int32](0),
		ConcurrentEvictions: -1,
		Strategy:            "Nearest",
		ScoreWeights:        &ScoreWeights{LeastAllocated: ptr.To[int32](101)},
		Plugins: []DeschedulerPlugin{
			{Name: "Unknown"},
			{Name: DeschedulerPluginOverCapacity},
			{Name: DeschedulerPluginOverCapacity},
			{},
		},
	}
	c.Default()
	errs := c.Validate()
	want := []string{
		"interval", "maxEvictionsPerSeed", "evictionRate", "evictionBurst", "concurrentEvictions",
		"strategy", "scoreWeights.leastAllocated", "plugins[1].name", "plugins[3].name", "plugins[4].name",
	}
	got := errs.ToAggregate().Error()
	for _, w := range want {
		if !strings.Contains(got, w+":") {
			t.Errorf("no error for %s in %s", w, got)
		}
	}
	if len(errs) != len(want) {
		t.Errorf("got %d errors, want %d: %v", len(errs), len(want), errs)
	}
}
