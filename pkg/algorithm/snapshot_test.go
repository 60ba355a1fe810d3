package algorithm

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/coretest"
	"k8s.io/utils/ptr"
)

func TestSnapshotCounts(t *testing.T) {
	snap := NewSnapshot()
	snap.AddSeed(coretest.MakeSeed("a").Obj())
	snap.AddSeed(coretest.MakeSeed("b").Obj())

	s1 := coretest.MakeShoot("garden-dev", "one").Seed("a").Obj()
	snap.AddShoot(s1)
	snap.AddShoot(s1) // idempotent
	if got := snap.Usage("a"); got != 1 {
		t.Fatalf("usage a = %d after adding one shoot twice", got)
	}

	// Migration a -> b: spec says b, status still a: counted on both.
	migrating := coretest.MakeShoot("garden-dev", "one").Seed("b").StatusSeed("a").Obj()
	snap.UpdateShoot(s1, migrating)
	if snap.Usage("a") != 1 || snap.Usage("b") != 1 {
		t.Fatalf("during migration usage a=%d b=%d, want 1 and 1", snap.Usage("a"), snap.Usage("b"))
	}
	if got := snap.CountedOn("garden-dev/one"); !slices.Equal(got, []string{"b", "a"}) {
		t.Fatalf("CountedOn = %v", got)
	}
	done := coretest.MakeShoot("garden-dev", "one").Seed("b").StatusSeed("b").Obj()
	snap.UpdateShoot(migrating, done)
	if snap.Usage("a") != 0 || snap.Usage("b") != 1 {
		t.Fatalf("after migration usage a=%d b=%d", snap.Usage("a"), snap.Usage("b"))
	}

	// A stale old object does not matter: the snapshot remembers what it counted.
	snap.UpdateShoot(s1, coretest.MakeShoot("garden-dev", "one").Obj())
	if snap.Usage("b") != 0 || snap.NumShoots() != 0 {
		t.Fatalf("after unbinding usage b=%d shoots=%d", snap.Usage("b"), snap.NumShoots())
	}

	// Shoots on unknown seeds are counted too, and survive seed removal.
	snap.AddShoot(coretest.MakeShoot("garden-dev", "two").Seed("c").Obj())
	snap.RemoveSeed(coretest.MakeSeed("a").Obj())
	if snap.Usage("c") != 1 || snap.NumSeeds() != 1 {
		t.Fatalf("usage c=%d seeds=%d", snap.Usage("c"), snap.NumSeeds())
	}
	snap.RemoveShoot(coretest.MakeShoot("garden-dev", "two").Obj())
	snap.RemoveShootByKey("garden-dev/unknown")
	if snap.Usage("c") != 0 {
		t.Fatalf("usage c=%d after removal", snap.Usage("c"))
	}
}

func TestSnapshotSeeds(t *testing.T) {
	snap := NewSnapshot()
	for _, n := range []string{"c", "a", "d", "b"} {
		snap.AddSeed(coretest.MakeSeed(n).Obj())
	}
	snap.RemoveSeedByName("a")
	snap.RemoveSeedByName("a")
	updated := coretest.MakeSeed("d").Provider("gcp", "x").Obj()
	snap.UpdateSeed(coretest.MakeSeed("d").Obj(), updated)
	var names []string
	for _, s := range snap.Seeds() {
		names = append(names, s.Name)
	}
	if !slices.Equal(names, []string{"b", "c", "d"}) {
		t.Fatalf("seeds = %v", names)
	}
	if got, ok := snap.Seed("d"); !ok || got != updated {
		t.Fatalf("Seed(d) = %v, %v", got, ok)
	}
	if _, ok := snap.Seed("a"); ok {
		t.Fatal("removed seed still there")
	}
	// Every remaining seed is still reachable by the decision.
	e := Explain(coretest.MakeShoot("garden-dev", "s").Provider("aws", "eu-west-1").Obj(), snap, Inputs{CloudProfile: coretest.MakeCloudProfile("aws").Obj()})
	if len(e.Seeds) != 3 {
		t.Fatalf("explained %d seeds", len(e.Seeds))
	}
}

func TestSnapshotClone(t *testing.T) {
	snap := snapshotOf(seeds(coretest.MakeSeed("a").Obj(), coretest.MakeSeed("b").Obj()), coretest.MakeShoot("garden-dev", "x").Seed("a").Obj())
	clone := snap.Clone()
	clone.AddShoot(coretest.MakeShoot("garden-dev", "y").Seed("a").Obj())
	clone.RemoveSeedByName("b")
	clone.AddSeed(coretest.MakeSeed("c").Obj())
	if snap.Usage("a") != 1 || snap.NumSeeds() != 2 {
		t.Fatalf("original changed: usage a=%d seeds=%d", snap.Usage("a"), snap.NumSeeds())
	}
	if clone.Usage("a") != 2 || clone.NumSeeds() != 2 {
		t.Fatalf("clone: usage a=%d seeds=%d", clone.Usage("a"), clone.NumSeeds())
	}
	snap.RemoveShootByKey("garden-dev/x")
	if clone.Usage("a") != 2 || len(clone.CountedOn("garden-dev/x")) != 1 {
		t.Fatalf("clone changed by the original: %d", clone.Usage("a"))
	}
	// Copy on write in both directions, also for clones of clones.
	again := clone.Clone()
	snap.AddShoot(coretest.MakeShoot("garden-dev", "z").Seed("b").Obj())
	again.RemoveShootByKey("garden-dev/y")
	if clone.Usage("a") != 2 || clone.NumShoots() != 2 || again.Usage("a") != 1 || again.NumShoots() != 1 ||
		snap.Usage("a") != 0 || snap.Usage("b") != 1 || snap.NumShoots() != 1 {
		t.Fatalf("clones leak updates: clone a=%d n=%d, again a=%d n=%d, snap a=%d b=%d n=%d",
			clone.Usage("a"), clone.NumShoots(), again.Usage("a"), again.NumShoots(), snap.Usage("a"), snap.Usage("b"), snap.NumShoots())
	}
}

func TestSeedNamesCountedFor(t *testing.T) {
	for _, tc := range []struct {
		spec, status string
		want         []string
	}{
		{"", "", nil},
		{"a", "", []string{"a"}},
		{"a", "a", []string{"a"}},
		{"b", "a", []string{"b", "a"}},
		{"", "a", []string{"a"}},
	} {
		if got := SeedNamesCountedFor(coretest.MakeShoot("garden-dev", "s").Seed(tc.spec).StatusSeed(tc.status).Obj()); !slices.Equal(got, tc.want) {
			t.Errorf("spec=%q status=%q: got %v, want %v", tc.spec, tc.status, got, tc.want)
		}
	}
}

func TestCloudProfileNameOf(t *testing.T) {
	s := coretest.MakeShoot("garden-dev", "s").Obj()
	if CloudProfileNameOf(s) != "aws" {
		t.Fatal(CloudProfileNameOf(s))
	}
	s.Spec.CloudProfile = nil
	s.Spec.CloudProfileName = ptr.To("legacy")
	if CloudProfileNameOf(s) != "legacy" {
		t.Fatal(CloudProfileNameOf(s))
	}
	s.Spec.CloudProfileName = nil
	if CloudProfileNameOf(s) != "" {
		t.Fatal(CloudProfileNameOf(s))
	}
}

func TestFitsElsewhere(t *testing.T) {
	cp := Inputs{CloudProfile: coretest.MakeCloudProfile("aws").Obj()}
	// The shoot runs on a and is being moved to b: it counts on both, and
	// must not be held against b's capacity when asking whether it fits there.
	shoot := coretest.MakeShoot("garden-dev", "s").Seed("b").StatusSeed("a").Obj()
	snap := snapshotOf(seeds(coretest.MakeSeed("a").Allocatable(1).Obj(), coretest.MakeSeed("b").Allocatable(1).Obj()), shoot)
	got, err := FitsElsewhere(shoot, snap, cp, "a")
	if err != nil || got != "b" {
		t.Fatalf("FitsElsewhere = %q, %v", got, err)
	}

	// Only the current seed would do.
	shoot = coretest.MakeShoot("garden-dev", "s").Seed("a").Obj()
	snap = snapshotOf(seeds(coretest.MakeSeed("a").Obj(), coretest.MakeSeed("b").Provider("aws", "us-east-1").Obj()), shoot)
	_, err = FitsElsewhere(shoot, snap, cp, "a")
	if err == nil {
		t.Fatal("fits elsewhere although only its own seed matches")
	}
	e := ExplainElsewhere(shoot, snap, cp, "a")
	if e.Seeds[0].Filter != FilterExcluded || e.Seeds[1].Filter != FilterStrategy {
		t.Fatalf("explanation %+v", e.Seeds)
	}

	// Nothing else exists.
	_, err = FitsElsewhere(shoot, snapshotOf(seeds(coretest.MakeSeed("a").Obj()), shoot), cp, "a")
	if err == nil || err.Error() != `no seed other than the current seed "a" exists: {a => the shoot's current seed}` {
		t.Fatalf("err = %v", err)
	}
}

func TestUnusableReasonDefaults(t *testing.T) {
	s := coretest.MakeSeed("a").Obj()
	s.Spec.Settings = &v1alpha1.SeedSettings{Scheduling: &v1alpha1.SeedSettingScheduling{Visible: true}}
	if r := newSeedInfo(s).unusable; r != "" {
		t.Fatalf("visible seed unusable: %s", r)
	}
}

// Decisions only read the snapshot, so several may run at once (run with -race).
func TestConcurrentDecisions(t *testing.T) {
	snap, pending, rc := benchLandscape(50, 500)
	in := Inputs{CloudProfile: coretest.MakeCloudProfile("aws").Obj(), RegionConfig: rc, Config: Config{Strategy: StrategyMinimalDistance}}
	want := make([]string, len(pending))
	for i, s := range pending {
		want[i], _ = Schedule(s, snap, in)
	}
	done := make(chan string, 4)
	for g := range 4 {
		go func() {
			for i := range pending {
				j := (i + g) % len(pending)
				if got, _ := Schedule(pending[j], snap, in); got != want[j] {
					done <- "different decision for " + pending[j].Name
					return
				}
				_ = Explain(pending[j], snap, in)
			}
			done <- ""
		}()
	}
	for range 4 {
		if msg := <-done; msg != "" {
			t.Fatal(msg)
		}
	}
}

// TestSnapshotFork: a fork, changed only through UpdateShoot with the
// objects its parent counted, counts and decides as a Clone changed the same
// way, and neither the fork nor the parent sees the other's later changes or
// copies the other's per-shoot records.
func TestSnapshotFork(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	names := []string{"a", "b", "c", "d"}
	pick := func() string {
		if i := rng.IntN(len(names) + 1); i < len(names) {
			return names[i]
		}
		return ""
	}
	for round := range 200 {
		var seedList []*v1alpha1.Seed
		for _, n := range names {
			seedList = append(seedList, coretest.MakeSeed(n).Allocatable(int64(3+rng.IntN(4))).Obj())
		}
		current := map[string]*v1alpha1.Shoot{}
		var shoots []*v1alpha1.Shoot
		for i := range 12 {
			s := coretest.MakeShoot("garden-dev", fmt.Sprintf("s%d", i)).Seed(pick()).StatusSeed(pick()).Obj()
			current[s.Name] = s
			shoots = append(shoots, s)
		}
		snap := snapshotOf(seedList, shoots...)
		fork := snap.Fork()
		if snap.shoots.shared {
			t.Fatal("Fork marked the parent's per-shoot records shared: the parent's next update would copy them")
		}
		clone := snap.Clone()
		// The parent goes on changing after the fork, shoots and seeds:
		// none of it shows.
		snap.AddShoot(coretest.MakeShoot("garden-dev", "late").Seed("a").Obj())
		snap.RemoveShootByKey("garden-dev/s0")
		snap.RemoveSeedByName("b")
		snap.AddSeed(coretest.MakeSeed("a").Allocatable(0).Obj())
		snap.AddSeed(coretest.MakeSeed("e").Obj())
		if fork.NumSeeds() != len(names) || clone.NumSeeds() != len(names) {
			t.Fatalf("round %d: seed changes of the original show in the fork (%d seeds) or the clone (%d)", round, fork.NumSeeds(), clone.NumSeeds())
		}
		if a, _ := fork.Seed("a"); a != seedList[0] {
			t.Fatalf("round %d: the fork sees the original's new seed a", round)
		}

		// The same hypothetical changes on both: evictions (spec cleared,
		// status kept), placements of waiting shoots, moves.
		ReserveForWaiting(clone, shoots, func(*v1alpha1.Shoot) (Inputs, error) {
			return Inputs{CloudProfile: coretest.MakeCloudProfile("aws").Obj()}, nil
		})
		ReserveForWaiting(fork, shoots, func(*v1alpha1.Shoot) (Inputs, error) {
			return Inputs{CloudProfile: coretest.MakeCloudProfile("aws").Obj()}, nil
		})
		for range 8 {
			s := shoots[rng.IntN(len(shoots))]
			next := coretest.MakeShoot("garden-dev", s.Name).Seed(pick()).StatusSeed(pick()).Obj()
			clone.UpdateShoot(current[s.Name], next)
			fork.UpdateShoot(current[s.Name], next)
			current[s.Name] = next
		}
		other := fork.Fork()
		other.RemoveSeedByName("c")
		if _, ok := fork.Seed("c"); !ok {
			t.Fatalf("round %d: a fork's seed removal shows in the snapshot it was forked from", round)
		}
		for _, n := range names {
			if clone.Usage(n) != fork.Usage(n) {
				t.Fatalf("round %d: usage of %s: clone %d, fork %d", round, n, clone.Usage(n), fork.Usage(n))
			}
		}
		in := Inputs{CloudProfile: coretest.MakeCloudProfile("aws").Obj()}
		for _, s := range current {
			for _, exclude := range append(names, "") {
				ct, cerr := FitsElsewhere(s, clone, in, exclude)
				ft, ferr := FitsElsewhere(s, fork, in, exclude)
				if ct != ft || (cerr == nil) != (ferr == nil) {
					t.Fatalf("round %d: %s elsewhere than %q: clone %q %v, fork %q %v", round, s.Name, exclude, ct, cerr, ft, ferr)
				}
			}
		}
	}
}
