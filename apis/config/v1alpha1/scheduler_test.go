package v1alpha1

import (
	"strings"
	"testing"
)

// The scheduler works on graft's API unless told otherwise, accepts
// Gardener's, and refuses any other group with a message naming the field and
// the groups it supports.
func TestSchedulerAPI(t *testing.T) {
	c := &SchedulerConfiguration{}
	c.Default()
	if c.API != APIGraft {
		t.Errorf("default api = %q, want %s", c.API, APIGraft)
	}
	if errs := c.Validate(); len(errs) != 0 {
		t.Errorf("defaulted configuration is invalid: %v", errs)
	}

	c = &SchedulerConfiguration{API: APIGardener}
	c.Default()
	if c.API != APIGardener {
		t.Errorf("api = %q after defaulting, want %s kept", c.API, APIGardener)
	}
	if errs := c.Validate(); len(errs) != 0 {
		t.Errorf("configuration on %s is invalid: %v", APIGardener, errs)
	}

	for _, bad := range []SchedulerAPI{"core.gardener.cloud/v1beta1", "gardener", "Core.Graft.Dev"} {
		c = &SchedulerConfiguration{API: bad}
		c.Default()
		errs := c.Validate()
		if len(errs) != 1 {
			t.Errorf("api %q: %d errors, want 1: %v", bad, len(errs), errs)
			continue
		}
		msg := errs.ToAggregate().Error()
		for _, want := range []string{"api", string(bad), string(APIGraft), string(APIGardener)} {
			if !strings.Contains(msg, want) {
				t.Errorf("api %q: error %q does not name %q", bad, msg, want)
			}
		}
	}
}
