package descheduler

import (
	goruntime "runtime"
	"testing"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/coretest"
	"github.com/graft-dev/graft/pkg/landscapefile"
)

// A plan starts no writer goroutines: its passes write into the copy, and
// a long plan must not leave one set per pass behind.
func TestPlanStartsNoWriters(t *testing.T) {
	cfg := &configv1alpha1.DeschedulerConfiguration{}
	defaultResolved(cfg)
	l := landscapefile.New()
	l.CloudProfiles = []*v1alpha1.CloudProfile{cloudProfile()}
	p, err := newPlanner(PlanOptions{Config: cfg, Landscape: l}, t0)
	if err != nil {
		t.Fatal(err)
	}
	p.d.state.setSeed(nil, coretest.MakeSeed("a").Taints(drainTaint).Obj(), t0)
	before := goruntime.NumGoroutine()
	for range 50 {
		p.pass([]string{"a"}, false)
	}
	if p.plan.Passes != 50 {
		t.Fatalf("%d passes", p.plan.Passes)
	}
	if after := goruntime.NumGoroutine(); after > before {
		t.Errorf("%d goroutines after 50 passes over a drained seed, %d before", after, before)
	}
}
