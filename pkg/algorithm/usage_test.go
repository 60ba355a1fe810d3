package algorithm

import (
	"slices"
	"testing"

	"github.com/graft-dev/graft/pkg/coretest"
)

// ShootCounter is the one usage count of the scheduler (through Snapshot) and
// the capacity annotator: each step is an event as an informer delivers it.
func TestShootCounter(t *testing.T) {
	c := NewShootCounter()
	for _, step := range []struct {
		name    string
		set     *shootCase // nil: delete key
		del     string
		changed []string
		counts  map[string]int
		shoots  int
	}{
		{name: "unbound shoot counts nowhere", set: &shootCase{"a", "", ""}, counts: map[string]int{"s1": 0}},
		{name: "bind", set: &shootCase{"a", "s1", ""}, changed: []string{"s1"}, counts: map[string]int{"s1": 1}, shoots: 1},
		{name: "status catches up", set: &shootCase{"a", "s1", "s1"}, counts: map[string]int{"s1": 1}, shoots: 1},
		{name: "second shoot", set: &shootCase{"b", "s1", "s1"}, changed: []string{"s1"}, counts: map[string]int{"s1": 2}, shoots: 2},
		{name: "migration in flight counts on both", set: &shootCase{"a", "s2", "s1"}, changed: []string{"s2"},
			counts: map[string]int{"s1": 2, "s2": 1}, shoots: 2},
		{name: "migration done", set: &shootCase{"a", "s2", "s2"}, changed: []string{"s1"}, counts: map[string]int{"s1": 1, "s2": 1}, shoots: 2},
		{name: "replay counts once", set: &shootCase{"a", "s2", "s2"}, counts: map[string]int{"s1": 1, "s2": 1}, shoots: 2},
		// An evicted shoot whose control plane still runs on s2 counts there.
		{name: "evicted, control plane still there", set: &shootCase{"a", "", "s2"}, counts: map[string]int{"s1": 1, "s2": 1}, shoots: 2},
		{name: "placed again while the old control plane runs", set: &shootCase{"a", "s3", "s2"}, changed: []string{"s3"},
			counts: map[string]int{"s1": 1, "s2": 1, "s3": 1}, shoots: 2},
		{name: "delete", del: "garden-dev/a", changed: []string{"s3", "s2"}, counts: map[string]int{"s1": 1, "s2": 0, "s3": 0}, shoots: 1},
		{name: "second delete changes nothing", del: "garden-dev/a", counts: map[string]int{"s1": 1}, shoots: 1},
		{name: "unbind (spec and status cleared)", set: &shootCase{"b", "", ""}, changed: []string{"s1"}, counts: map[string]int{"s1": 0}},
	} {
		var changed []string
		if step.set != nil {
			changed = c.Set(coretest.MakeShoot("garden-dev", step.set.name).Seed(step.set.spec).StatusSeed(step.set.status).Obj())
		} else {
			changed = c.Delete(step.del)
		}
		if !slices.Equal(changed, step.changed) {
			t.Errorf("%s: changed %v, want %v", step.name, changed, step.changed)
		}
		for seed, want := range step.counts {
			if got := c.Count(seed); got != want {
				t.Errorf("%s: count of %s = %d, want %d", step.name, seed, got, want)
			}
		}
		if c.Shoots() != step.shoots {
			t.Errorf("%s: shoots = %d, want %d", step.name, c.Shoots(), step.shoots)
		}
	}
	if len(c.perSeed) != 0 || len(c.shoots) != 0 {
		t.Errorf("zero counts or records kept: %v %v", c.perSeed, c.shoots)
	}
}

type shootCase struct{ name, spec, status string }

// A shoot being deleted keeps its control plane until the deletion is done, so
// it counts where it runs (the rule docs/install.md gives for usage and OverCapacity).
func TestShootCounterCountsShootsBeingDeleted(t *testing.T) {
	c := NewShootCounter()
	s := coretest.MakeShoot("garden-dev", "a").Seed("s1").StatusSeed("s1").Obj()
	c.Set(s)
	deleting := s.DeepCopy()
	deleting.DeletionTimestamp = &deleting.CreationTimestamp
	if changed := c.Set(deleting); changed != nil || c.Count("s1") != 1 {
		t.Errorf("deletionTimestamp changed %v, count %d; want no change and 1", changed, c.Count("s1"))
	}
}

func TestShootCounterClone(t *testing.T) {
	c := NewShootCounter()
	c.Set(coretest.MakeShoot("garden-dev", "a").Seed("s1").Obj())
	clone := c.Clone()
	clone.Set(coretest.MakeShoot("garden-dev", "b").Seed("s1").Obj())
	c.Delete("garden-dev/a")
	if c.Count("s1") != 0 || c.Shoots() != 0 {
		t.Errorf("original: count %d shoots %d, want 0 and 0", c.Count("s1"), c.Shoots())
	}
	if clone.Count("s1") != 2 || !slices.Equal(clone.CountedOn("garden-dev/a"), []string{"s1"}) {
		t.Errorf("clone: count %d, a counted on %v; want 2 and [s1]", clone.Count("s1"), clone.CountedOn("garden-dev/a"))
	}
}
