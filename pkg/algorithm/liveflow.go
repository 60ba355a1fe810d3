package algorithm

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

// LiveFlow is what graft knows of which gardenlets run GEP-39's live
// control-plane migration. Gardener's admission takes the live intent
// (LiveMigrationBlocker), but only a gardenlet with the live flow makes it a
// move without downtime: Gardener v1.150.0's runs the classic Migrate and
// Restore whatever the annotation. So a move is timed as live only with
// evidence from the operator or from Gardener itself, never from a tenant.
type LiveFlow struct {
	// Declared are the gardenlet versions the operator's configuration names
	// as running the live flow.
	Declared sets.Set[string]
	// Observed are the gardenlet versions seen reporting a LiveMigrate
	// operation for a live intent.
	Observed sets.Set[string]
	// FellBack are the version pairs (LivePair) whose live intent ended in a
	// classic migration: they are not timed as live again.
	FellBack sets.Set[string]
}

// LivePair names the move of a control plane from gardenlet version from to
// gardenlet version to.
func LivePair(from, to string) string { return from + " -> " + to }

// Blocker says why a move between seeds whose gardenlets report versions
// from and to is not timed as live; "" when both are known to run the live
// flow and that pair never fell back.
func (f LiveFlow) Blocker(from, to string) string {
	if from == "" || to == "" {
		return "a seed reports no gardenlet version"
	}
	if f.FellBack.Has(LivePair(from, to)) {
		return fmt.Sprintf("a live migration from gardenlet %s to %s fell back to a classic one", Clip(from), Clip(to))
	}
	for _, v := range []string{from, to} {
		if !f.Declared.Has(v) && !f.Observed.Has(v) {
			return fmt.Sprintf("gardenlet %s is not known to run the live flow (none in liveMigrationGardenletVersions, none seen live; Gardener v1.150.0 migrates classically)", Clip(v))
		}
	}
	return ""
}

// SeedBlocker is Blocker for two seeds.
func (f LiveFlow) SeedBlocker(from, to *v1alpha1.Seed) string {
	return f.Blocker(GardenletVersion(from), GardenletVersion(to))
}

// GardenletVersion is the gardenlet version the seed reports; "" when none.
func GardenletVersion(seed *v1alpha1.Seed) string {
	if seed == nil {
		return ""
	}
	return agentVersion(seed)
}

// LiveOutcome tells what a shoot's last operation says of a live intent
// written for it while its last operation was before: Observed when the
// gardenlet runs the live flow, FellBack when it ran the classic one,
// neither while no new operation has started.
func LiveOutcome(shoot *v1alpha1.Shoot, before *v1alpha1.LastOperation) (observed, fellBack bool) {
	op := shoot.Status.LastOperation
	if op == nil || before != nil && op.Type == before.Type && op.State == before.State && op.LastUpdateTime.Equal(&before.LastUpdateTime) {
		return false, false
	}
	switch op.Type {
	case v1alpha1.LastOperationTypeLiveMigrate:
		return true, false
	case v1alpha1.LastOperationTypeMigrate, v1alpha1.LastOperationTypeRestore:
		return false, true
	}
	return false, false
}

// MoveBlocker says the first thing that keeps the shoot's move from seed
// from to seed to from going live without downtime: GEP-39's prerequisites
// (LiveMigrationBlocker), then the gardenlets' live flow (Blocker). ""
// when the move would be live.
func (f LiveFlow) MoveBlocker(shoot *v1alpha1.Shoot, from, to *v1alpha1.Seed, regions *RegionConfig) string {
	if from == nil || to == nil {
		return "a seed is not known"
	}
	if why := LiveMigrationBlocker(shoot, from, to, regions); why != "" {
		return why
	}
	return f.SeedBlocker(from, to)
}
