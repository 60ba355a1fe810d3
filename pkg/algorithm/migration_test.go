package algorithm

import (
	"strings"
	"testing"

	"github.com/graft-dev/graft/pkg/coretest"
)

// TestMigrationFilter: with Gardener's migration rules on, a bound shoot
// moves only to a seed Gardener would accept, even when a seed it would
// refuse is less used; the explanation says why each refused seed is out.
// Without the rules (graft's API) the least used seed wins.
func TestMigrationFilter(t *testing.T) {
	snap := snapshotOf(seeds(
		coretest.MakeSeed("a").Backup("aws").InternalDomain("internal.example").Obj(),
		coretest.MakeSeed("b").Backup("aws").InternalDomain("internal.example").Obj(),
		coretest.MakeSeed("c-no-backup").Obj(),
		coretest.MakeSeed("d-other-domain").Backup("aws").InternalDomain("internal.other.example").Obj(),
	), append(fill("b", 3), fill("a", 1)...)...)
	shoot := coretest.MakeShoot("garden-dev", "s").Seed("a").StatusSeed("a").Obj()
	in := Inputs{CloudProfile: coretest.MakeCloudProfile("aws").Obj(), Migration: true}

	got, err := FitsElsewhere(shoot, snap, in, "a")
	if err != nil || got != "b" {
		t.Fatalf("FitsElsewhere = %q, %v; want b, the one seed Gardener accepts", got, err)
	}
	e := ExplainElsewhere(shoot, snap, in, "a")
	says := map[string]string{
		"c-no-backup":    "destination seed c-no-backup has no spec.backup",
		"d-other-domain": `seeds a and d-other-domain have different internal DNS domains ("internal.example" and "internal.other.example")`,
	}
	for _, r := range e.Seeds {
		if want, ok := says[r.Seed]; ok && (r.Filter != FilterMigration || !strings.Contains(r.Message, want)) {
			t.Errorf("seed %s: %s %q, want %s saying %q", r.Seed, r.Filter, r.Message, FilterMigration, want)
		}
	}

	in.Migration = false
	if got, err := FitsElsewhere(shoot, snap, in, "a"); err != nil || got != "c-no-backup" {
		t.Errorf("without the rules FitsElsewhere = %q, %v; want the least used seed c-no-backup", got, err)
	}
}

// TestMigrationFilterSourceWithoutBackup: a shoot on a seed without backup
// can go nowhere, and the error says so.
func TestMigrationFilterSourceWithoutBackup(t *testing.T) {
	snap := snapshotOf(seeds(coretest.MakeSeed("a").Obj(), coretest.MakeSeed("b").Backup("aws").InternalDomain("").Obj()))
	shoot := coretest.MakeShoot("garden-dev", "s").Seed("a").StatusSeed("a").Obj()
	_, err := FitsElsewhere(shoot, snap, Inputs{CloudProfile: coretest.MakeCloudProfile("aws").Obj(), Migration: true}, "a")
	if err == nil || !strings.Contains(err.Error(), `none of the 1 seeds is one Gardener would move the control plane to from seed "a"`) ||
		!strings.Contains(err.Error(), "seed a has no spec.backup") {
		t.Errorf("error %v, want the migration headline and the source's missing backup", err)
	}
	if ShortReason(err) != "0/2 seeds fit: current seed (1), migration refused by Gardener (1)" {
		t.Errorf("short reason %q", ShortReason(err))
	}
}

// TestMigrationFilterLeavesNewShootsAlone: a shoot without a seed is no
// migration, whatever the seeds' backup.
func TestMigrationFilterLeavesNewShootsAlone(t *testing.T) {
	snap := snapshotOf(seeds(coretest.MakeSeed("a").Obj()))
	if got, err := Schedule(coretest.MakeShoot("garden-dev", "s").Obj(), snap, Inputs{CloudProfile: coretest.MakeCloudProfile("aws").Obj(), Migration: true}); err != nil || got != "a" {
		t.Errorf("Schedule = %q, %v; want a", got, err)
	}
}

// TestEvacuatingSeedsReceiveNone: a seed control planes are being moved off
// is no destination, even the least used one, and says why; with every
// other seed evacuating the move fails with that reason.
func TestEvacuatingSeedsReceiveNone(t *testing.T) {
	snap := snapshotOf(seeds(
		coretest.MakeSeed("a").Backup("aws").InternalDomain("internal.example").Obj(),
		coretest.MakeSeed("b").Backup("aws").InternalDomain("internal.example").Obj(),
		coretest.MakeSeed("c").Backup("aws").InternalDomain("internal.example").Obj(),
	), fill("c", 3)...)
	shoot := coretest.MakeShoot("garden-dev", "s").Seed("a").StatusSeed("a").Obj()
	in := Inputs{CloudProfile: coretest.MakeCloudProfile("aws").Obj(), Migration: true, Evacuating: func(seed string) bool { return seed == "b" }}

	got, err := FitsElsewhere(shoot, snap, in, "a")
	if err != nil || got != "c" {
		t.Fatalf("FitsElsewhere = %q, %v; want c, the one seed not being evacuated", got, err)
	}
	for _, r := range ExplainElsewhere(shoot, snap, in, "a").Seeds {
		if r.Seed == "b" && (r.Filter != FilterEvacuating || !strings.Contains(r.Message, "control planes are being moved off the seed")) {
			t.Errorf("seed b: %s %q, want %s", r.Filter, r.Message, FilterEvacuating)
		}
	}

	in.Evacuating = func(seed string) bool { return seed != "a" }
	_, err = FitsElsewhere(shoot, snap, in, "a")
	if err == nil || ShortReason(err) != "0/3 seeds fit: being evacuated (2), current seed (1)" {
		t.Errorf("with every other seed evacuating: %v (short reason %q)", err, ShortReason(err))
	}
}
