//go:build gardener

package gardener

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/graft-dev/graft/pkg/coretest"
)

// TestZonePinningOnGardener: Gardener v1.150's control-plane zone pinning.
// graft-scheduler places a shoot pinned to zone b on the one seed with that
// zone, though seed a is emptier and sorts first; a shoot pinned to a zone no
// seed has waits with Gardener's words. When seed b is drained, `graftctl
// drain --migrate` migrates the pinned shoot only to the other seed with zone
// b, the fullest, never to an emptier seed without it: gardener-apiserver
// does not check the zones again on the binding. (graft-descheduler chooses
// destinations with the same algorithm; its unit test pins the same.)
func TestZonePinningOnGardener(t *testing.T) {
	zoned := func(zones ...string) func(*coretest.SeedWrapper) {
		return func(s *coretest.SeedWrapper) {
			migratable(s)
			s.Zones(zones...)
		}
	}
	l := newLandscapeWith(t, "pin",
		landscapeSeed{"a", zoned(region + "a")},
		landscapeSeed{"b", zoned(region+"a", region+"b")},
		landscapeSeed{"c", zoned(region + "a")},
		landscapeSeed{"d", zoned(region + "b")})
	a, b, d := l.seeds[0], l.seeds[1], l.seeds[3]
	for _, seed := range l.seeds {
		markSeedReady(t, seed, 20, nil)
	}
	// Seed d is the fullest: only the pinning can send a shoot there.
	for _, name := range []string{"d1", "d2", "d3"} {
		l.createOn(t, name, d)
	}
	startGraftScheduler(t, "graft-scheduler-pinning", l.schedulerName())

	l.createGraftShootFrom(t, l.makeShoot("pinned").PinZones(region+"b"))
	bound := waitForShoot(t, l, "pinned", "spec.seedName set", func(s *unstructured.Unstructured) bool {
		_, found, _ := unstructured.NestedString(s.Object, "spec", "seedName")
		return found
	})
	if got, _, _ := unstructured.NestedString(bound.Object, "spec", "seedName"); got != b {
		t.Fatalf("shoot pinned to zone %sb bound to %q, want %s, the emptiest seed with the zone (seed %s is emptier, without it)", region, got, b, a)
	}
	runsOn(t, bound, b)

	l.createGraftShootFrom(t, l.makeShoot("nowhere").PinZones(region+"c"))
	pending := waitForShoot(t, l, "nowhere", "lastOperation Create/Pending", func(s *unstructured.Unstructured) bool {
		state, _, _ := unstructured.NestedString(s.Object, "status", "lastOperation", "state")
		return state == "Pending"
	})
	description, _, _ := unstructured.NestedString(pending.Object, "status", "lastOperation", "description")
	if want := "none of the 4 seeds contains all requested control plane zones [" + region + "c]"; !strings.Contains(description, want) {
		t.Errorf("lastOperation of the shoot pinned to a zone no seed has says %q, want %q", description, want)
	}

	out := onGardener(t, "drain", b, "--strategy=SameRegion", "--migrate", "--migration-rate=0", "--wait=false")
	if !strings.Contains(out, "shoot/"+l.namespace+"/pinned moved to seed/"+d) {
		t.Errorf("drain --migrate of seed %s did not move the pinned shoot to %s:\n%s", b, d, out)
	}
	moved := l.shootOf(t, "pinned")
	if dest, _, _ := unstructured.NestedString(moved.Object, "spec", "seedName"); dest != d {
		t.Errorf("the pinned shoot migrated to %q, want %s, the only other seed with zone %sb", dest, d, region)
	}
}
