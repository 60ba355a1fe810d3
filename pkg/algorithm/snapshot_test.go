package algorithm

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

func TestSnapshotCounts(t *testing.T) {
	snap := NewSnapshot()
	snap.AddSeed(newSeed("a"))
	snap.AddSeed(newSeed("b"))

	s1 := newShoot("one", onSeed("a", ""))
	snap.AddShoot(s1)
	snap.AddShoot(s1) // idempotent
	if got := snap.Usage("a"); got != 1 {
		t.Fatalf("usage a = %d after adding one shoot twice", got)
	}

	// Migration a -> b: spec says b, status still a: counted on both.
	migrating := newShoot("one", onSeed("b", "a"))
	snap.UpdateShoot(s1, migrating)
	if snap.Usage("a") != 1 || snap.Usage("b") != 1 {
		t.Fatalf("during migration usage a=%d b=%d, want 1 and 1", snap.Usage("a"), snap.Usage("b"))
	}
	if got := snap.CountedOn("garden-dev/one"); !slices.Equal(got, []string{"b", "a"}) {
		t.Fatalf("CountedOn = %v", got)
	}
	done := newShoot("one", onSeed("b", "b"))
	snap.UpdateShoot(migrating, done)
	if snap.Usage("a") != 0 || snap.Usage("b") != 1 {
		t.Fatalf("after migration usage a=%d b=%d", snap.Usage("a"), snap.Usage("b"))
	}

	// A stale old object does not matter: the snapshot remembers what it counted.
	snap.UpdateShoot(s1, newShoot("one"))
	if snap.Usage("b") != 0 || snap.NumShoots() != 0 {
		t.Fatalf("after unbinding usage b=%d shoots=%d", snap.Usage("b"), snap.NumShoots())
	}

	// Shoots on unknown seeds are counted too, and survive seed removal.
	snap.AddShoot(newShoot("two", onSeed("c", "")))
	snap.RemoveSeed(newSeed("a"))
	if snap.Usage("c") != 1 || snap.NumSeeds() != 1 {
		t.Fatalf("usage c=%d seeds=%d", snap.Usage("c"), snap.NumSeeds())
	}
	snap.RemoveShoot(newShoot("two"))
	snap.RemoveShootByKey("garden-dev/unknown")
	if snap.Usage("c") != 0 {
		t.Fatalf("usage c=%d after removal", snap.Usage("c"))
	}
}

func TestSnapshotSeeds(t *testing.T) {
	snap := NewSnapshot()
	for _, n := range []string{"c", "a", "d", "b"} {
		snap.AddSeed(newSeed(n))
	}
	snap.RemoveSeedByName("a")
	snap.RemoveSeedByName("a")
	updated := newSeed("d", region("gcp", "x"))
	snap.UpdateSeed(newSeed("d"), updated)
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
	e := Explain(newShoot("s", shootRegion("aws", "eu-west-1")), snap, Inputs{CloudProfile: cloudProfile("aws")})
	if len(e.Seeds) != 3 {
		t.Fatalf("explained %d seeds", len(e.Seeds))
	}
}

func TestSnapshotClone(t *testing.T) {
	snap := snapshotOf(seeds(newSeed("a"), newSeed("b")), newShoot("x", onSeed("a", "")))
	clone := snap.Clone()
	clone.AddShoot(newShoot("y", onSeed("a", "")))
	clone.RemoveSeedByName("b")
	clone.AddSeed(newSeed("c"))
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
	snap.AddShoot(newShoot("z", onSeed("b", "")))
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
		if got := SeedNamesCountedFor(newShoot("s", onSeed(tc.spec, tc.status))); !slices.Equal(got, tc.want) {
			t.Errorf("spec=%q status=%q: got %v, want %v", tc.spec, tc.status, got, tc.want)
		}
	}
}

func TestCloudProfileNameOf(t *testing.T) {
	s := newShoot("s")
	if CloudProfileNameOf(s) != "aws" {
		t.Fatal(CloudProfileNameOf(s))
	}
	s.Spec.CloudProfile = nil
	s.Spec.CloudProfileName = ptr("legacy")
	if CloudProfileNameOf(s) != "legacy" {
		t.Fatal(CloudProfileNameOf(s))
	}
	s.Spec.CloudProfileName = nil
	if CloudProfileNameOf(s) != "" {
		t.Fatal(CloudProfileNameOf(s))
	}
}

func TestFitsElsewhere(t *testing.T) {
	cp := Inputs{CloudProfile: cloudProfile("aws")}
	// The shoot runs on a and is being moved to b: it counts on both, and
	// must not be held against b's capacity when asking whether it fits there.
	shoot := newShoot("s", onSeed("b", "a"))
	snap := snapshotOf(seeds(newSeed("a", allocatable(1)), newSeed("b", allocatable(1))), shoot)
	got, err := FitsElsewhere(shoot, snap, cp, "a")
	if err != nil || got != "b" {
		t.Fatalf("FitsElsewhere = %q, %v", got, err)
	}

	// Only the current seed would do.
	shoot = newShoot("s", onSeed("a", ""))
	snap = snapshotOf(seeds(newSeed("a"), newSeed("b", region("aws", "us-east-1"))), shoot)
	_, err = FitsElsewhere(shoot, snap, cp, "a")
	if err == nil {
		t.Fatal("fits elsewhere although only its own seed matches")
	}
	e := ExplainElsewhere(shoot, snap, cp, "a")
	if e.Seeds[0].Filter != FilterExcluded || e.Seeds[1].Filter != FilterStrategy {
		t.Fatalf("explanation %+v", e.Seeds)
	}

	// Nothing else exists.
	_, err = FitsElsewhere(shoot, snapshotOf(seeds(newSeed("a")), shoot), cp, "a")
	if err == nil || err.Error() != `no seed other than the current seed "a" exists: {a => the shoot's current seed}` {
		t.Fatalf("err = %v", err)
	}
}

func TestUnusableReasonDefaults(t *testing.T) {
	s := newSeed("a")
	s.Spec.Settings = &v1alpha1.SeedSettings{Scheduling: &v1alpha1.SeedSettingScheduling{Visible: true}}
	if r := newSeedInfo(s).unusable; r != "" {
		t.Fatalf("visible seed unusable: %s", r)
	}
}

// Decisions only read the snapshot, so several may run at once (run with -race).
func TestConcurrentDecisions(t *testing.T) {
	snap, pending, rc := benchLandscape(50, 500)
	in := Inputs{CloudProfile: cloudProfile("aws"), RegionConfig: rc, Config: Config{Strategy: StrategyMinimalDistance}}
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
			seedList = append(seedList, newSeed(n, allocatable(int64(3+rng.IntN(4)))))
		}
		current := map[string]*v1alpha1.Shoot{}
		var shoots []*v1alpha1.Shoot
		for i := range 12 {
			s := newShoot(fmt.Sprintf("s%d", i), onSeed(pick(), pick()))
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
		snap.AddShoot(newShoot("late", onSeed("a", "")))
		snap.RemoveShootByKey("garden-dev/s0")
		snap.RemoveSeedByName("b")
		snap.AddSeed(newSeed("a", allocatable(0)))
		snap.AddSeed(newSeed("e"))
		if fork.NumSeeds() != len(names) || clone.NumSeeds() != len(names) {
			t.Fatalf("round %d: seed changes of the original show in the fork (%d seeds) or the clone (%d)", round, fork.NumSeeds(), clone.NumSeeds())
		}
		if a, _ := fork.Seed("a"); a != seedList[0] {
			t.Fatalf("round %d: the fork sees the original's new seed a", round)
		}

		// The same hypothetical changes on both: evictions (spec cleared,
		// status kept), placements of waiting shoots, moves.
		ReserveForWaiting(clone, shoots, func(*v1alpha1.Shoot) (Inputs, error) { return Inputs{CloudProfile: cloudProfile("aws")}, nil })
		ReserveForWaiting(fork, shoots, func(*v1alpha1.Shoot) (Inputs, error) { return Inputs{CloudProfile: cloudProfile("aws")}, nil })
		for range 8 {
			s := shoots[rng.IntN(len(shoots))]
			next := newShoot(s.Name, onSeed(pick(), pick()))
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
		in := Inputs{CloudProfile: cloudProfile("aws")}
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
