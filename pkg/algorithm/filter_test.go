package algorithm

import (
	"slices"
	"testing"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/coretest"
)

// Every plugin of the pipeline says what it rejects, in words, with a
// headline when it can fail a decision; every Filter has one place in the
// order.
func TestPipelineDescribesEveryFilter(t *testing.T) {
	for i, p := range pipeline {
		if len(p.reasons) == 0 {
			t.Fatalf("plugin %d has no reason", i)
		}
		name := p.reasons[0].filter
		if p.check == nil && p.mark == nil && p.aside == nil {
			t.Errorf("plugin %s: neither a check nor a mark", name)
		}
		if p.aside == nil && p.headline == nil {
			t.Errorf("plugin %s can fail a decision but has no headline", name)
		}
	}
	if got := len(reasons); got != len(filterOrderList) {
		t.Fatalf("%d reasons, %d filters in the order", got, len(filterOrderList))
	}
	for _, f := range filterOrderList {
		rs := reasons[f]
		if rs.short == "" || rs.message == nil {
			t.Errorf("filter %s: short %q, message set %v", f, rs.short, rs.message != nil)
		}
		if FilterOfCode(FilterCode(f)) != f {
			t.Errorf("filter %s does not survive its code", f)
		}
	}
	// Gardener's order of the steps graft shares with it.
	gardener := []Filter{FilterUsable, FilterCloudProfileSeedSelector, FilterShootSeedSelector, FilterProvider,
		FilterHighAvailability, FilterZoneSelection, FilterZonePreference, FilterAccessRestrictions, FilterDomain,
		FilterEmergencyStop, FilterNetworks, FilterTaints, FilterCapacity, FilterStrategy}
	if !slices.IsSortedFunc(gardener, func(a, b Filter) int { return filterOrder(a) - filterOrder(b) }) {
		t.Errorf("the pipeline is not in Gardener's order: %v", filterOrderList)
	}
}

// A marked plugin is skipped while no seed of the snapshot is marked, and
// the snapshot's counts follow seeds added, changed, removed and forked.
func TestMarkedPluginFollowsSnapshot(t *testing.T) {
	stopped := func(name string) *v1alpha1.Seed {
		s := coretest.MakeSeed(name).Obj()
		s.Annotations = map[string]string{v1alpha1.AnnotationEmergencyStopShootReconciliations: "true"}
		return s
	}
	count := func(s *Snapshot) int { return s.marks[emergencyStopPlugin.markIndex] }
	onlyStopped := func(s *Snapshot) Filter {
		_, err := Schedule(coretest.MakeShoot("garden-dev", "s").Obj(), s, Inputs{CloudProfile: coretest.MakeCloudProfile("aws").Obj()})
		if err == nil {
			return ""
		}
		return err.(*ScheduleError).Filter
	}

	snap := snapshotOf([]*v1alpha1.Seed{stopped("a"), coretest.MakeSeed("b").Obj()})
	if count(snap) != 1 {
		t.Fatalf("marked seeds: %d, want 1", count(snap))
	}
	snap.UpdateSeed(coretest.MakeSeed("b").Obj(), stopped("b"))
	if count(snap) != 2 || onlyStopped(snap) != FilterEmergencyStop {
		t.Fatalf("both stopped: count %d, decision fails for %q", count(snap), onlyStopped(snap))
	}
	fork := snap.Fork()
	fork.UpdateSeed(stopped("a"), coretest.MakeSeed("a").Obj())
	if count(fork) != 1 || onlyStopped(fork) != "" {
		t.Fatalf("fork with a resumed: count %d, decision fails for %q", count(fork), onlyStopped(fork))
	}
	if count(snap) != 2 || onlyStopped(snap) != FilterEmergencyStop {
		t.Fatalf("the fork's change shows in the original: count %d", count(snap))
	}
	snap.RemoveSeed(stopped("a"))
	snap.UpdateSeed(stopped("b"), coretest.MakeSeed("b").Obj())
	if count(snap) != 0 || onlyStopped(snap) != "" {
		t.Fatalf("none stopped: count %d, decision fails for %q", count(snap), onlyStopped(snap))
	}
	if c := snap.Clone(); count(c) != 0 {
		t.Fatalf("clone counts %d", count(c))
	}
}
