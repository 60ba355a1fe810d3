package v1alpha1

import (
	"strings"
	"testing"
)

// Both components that ask the scheduling algorithm read region ConfigMaps
// from one namespace, and only a namespace name is accepted: empty would mean
// every namespace, which lets tenants steer. graft-scheduler's is garden
// unless configured; graft-descheduler takes the scheduler's (published on
// its Lease) unless configured, so empty is valid in its file and filled in
// before it starts (New refuses it empty).
func TestRegionConfigNamespace(t *testing.T) {
	type config interface {
		Configuration
		regionConfigNamespace() *string
	}
	for _, newConfig := range []func() config{
		func() config { return &schedulerConfig{&SchedulerConfiguration{}} },
		func() config { return &deschedulerConfig{&DeschedulerConfiguration{}} },
	} {
		c := newConfig()
		c.Default()
		_, descheduler := c.(*deschedulerConfig)
		if got, want := *c.regionConfigNamespace(), map[bool]string{false: "garden", true: ""}[descheduler]; got != want {
			t.Errorf("%T: default regionConfigNamespace = %q, want %q", c, got, want)
		}
		if errs := c.Validate(); len(errs) != 0 {
			t.Errorf("%T: defaulted configuration is invalid: %v", c, errs)
		}

		c = newConfig()
		*c.regionConfigNamespace() = "garden-ops"
		c.Default()
		if got := *c.regionConfigNamespace(); got != "garden-ops" {
			t.Errorf("%T: regionConfigNamespace = %q after defaulting, want garden-ops kept", c, got)
		}

		for _, bad := range []string{"Garden", "garden.ops", "-garden", strings.Repeat("g", 64)} {
			c = newConfig()
			c.Default()
			*c.regionConfigNamespace() = bad
			errs := c.Validate()
			if len(errs) != 1 || errs[0].Field != "regionConfigNamespace" {
				t.Errorf("%T: regionConfigNamespace %q gives %v, want one error for regionConfigNamespace", c, bad, errs)
			}
		}
		c = newConfig()
		c.Default()
		*c.regionConfigNamespace() = ""
		if errs := c.Validate(); !descheduler && (len(errs) != 1 || !strings.Contains(errs[0].Error(), "regionConfigNamespace: Required")) {
			t.Errorf("%T: empty regionConfigNamespace gives %v, want it required", c, errs)
		}
	}
}

type schedulerConfig struct{ *SchedulerConfiguration }

func (c *schedulerConfig) regionConfigNamespace() *string { return &c.RegionConfigNamespace }

type deschedulerConfig struct{ *DeschedulerConfiguration }

func (c *deschedulerConfig) regionConfigNamespace() *string { return &c.RegionConfigNamespace }
