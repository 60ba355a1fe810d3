package capacity

import (
	"slices"
	"testing"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/coretest"
)

func counts(c *usageCounter, seeds ...string) []int {
	var out []int
	for _, s := range seeds {
		out = append(out, c.Count(s))
	}
	return out
}

func TestUsageCounterFollowsBindsMigrationsAndDeletes(t *testing.T) {
	c := newUsageCounter()
	if changed := c.Set(coretest.MakeShoot("garden-dev", "a").Obj()); changed != nil {
		t.Errorf("an unbound shoot changed %v", changed)
	}
	if changed := c.Set(coretest.MakeShoot("garden-dev", "a").Seed("s1").Obj()); !slices.Equal(changed, []string{"s1"}) {
		t.Errorf("bind changed %v, want [s1]", changed)
	}
	// The agent reports the shoot on s1: nothing changes.
	if changed := c.Set(coretest.MakeShoot("garden-dev", "a").Seed("s1").StatusSeed("s1").Obj()); changed != nil {
		t.Errorf("status catching up changed %v", changed)
	}
	c.Set(coretest.MakeShoot("garden-dev", "b").Seed("s1").StatusSeed("s1").Obj())
	if got := counts(c, "s1", "s2"); !slices.Equal(got, []int{2, 0}) {
		t.Fatalf("counts = %v, want [2 0]", got)
	}
	// Migration of a from s1 to s2 in flight: a counts on both.
	if changed := c.Set(coretest.MakeShoot("garden-dev", "a").Seed("s2").StatusSeed("s1").Obj()); !slices.Equal(changed, []string{"s2"}) {
		t.Errorf("migration start changed %v, want [s2]", changed)
	}
	if got := counts(c, "s1", "s2"); !slices.Equal(got, []int{2, 1}) {
		t.Fatalf("counts during migration = %v, want [2 1]", got)
	}
	// Migration done.
	if changed := c.Set(coretest.MakeShoot("garden-dev", "a").Seed("s2").StatusSeed("s2").Obj()); !slices.Equal(changed, []string{"s1"}) {
		t.Errorf("migration end changed %v, want [s1]", changed)
	}
	if got := counts(c, "s1", "s2"); !slices.Equal(got, []int{1, 1}) {
		t.Fatalf("counts after migration = %v, want [1 1]", got)
	}
	// Replaying an event does not count twice.
	c.Set(coretest.MakeShoot("garden-dev", "a").Seed("s2").StatusSeed("s2").Obj())
	if got := counts(c, "s1", "s2"); !slices.Equal(got, []int{1, 1}) {
		t.Fatalf("counts after replay = %v, want [1 1]", got)
	}
	if changed := c.Delete("garden-dev/a"); !slices.Equal(changed, []string{"s2"}) {
		t.Errorf("delete changed %v, want [s2]", changed)
	}
	if changed := c.Delete("garden-dev/a"); changed != nil {
		t.Errorf("second delete changed %v", changed)
	}
	// Unbinding (spec and status cleared) removes the count.
	if changed := c.Set(coretest.MakeShoot("garden-dev", "b").Obj()); !slices.Equal(changed, []string{"s1"}) {
		t.Errorf("unbind changed %v, want [s1]", changed)
	}
	if got := counts(c, "s1", "s2"); !slices.Equal(got, []int{0, 0}) || c.shoots.Shoots() != 0 {
		t.Fatalf("counts after unbind = %v (shoots %d), want zeros", got, c.shoots.Shoots())
	}
}

func BenchmarkUsageCounterSet(b *testing.B) {
	c := newUsageCounter()
	shoots := make([]*v1alpha1.Shoot, 1000)
	for i := range shoots {
		shoots[i] = coretest.MakeShoot("garden-dev", string(rune('a'+i%26))+string(rune('a'+i/26))).Seed("s1").Obj()
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := shoots[i%len(shoots)]
		c.Set(s)
		c.Delete("garden-dev/" + s.Name)
	}
}
