package helper

import (
	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

// A seed is asked three different questions, and each has its own function:
//
//   - SeedUnusableReason: may a scheduler place a new shoot on the seed at all?
//     (Gardener's usable-seed rule; the scheduler, the descheduler's fit check,
//     graftctl describe, drain and simulate ask it through pkg/algorithm.)
//   - SeedReadiness: is the seed reconciled and ready, including its backup
//     buckets when it has backup? This is the health part of the first
//     question, and what graftctl shows in its READY column, so that READY
//     True means the scheduler's health checks pass.
//   - SeedGardenletReadiness: is the seed's agent up and has it reconciled the
//     seed? graft-capacity-annotator taints a seed not-ready (and, after a
//     delay, NoExecute) by this rule. It leaves backup buckets out on purpose:
//     a failing backup must keep new shoots away (the first question) but is
//     no reason to evict the control planes that run there.

// SeedVisible tells whether the seed is visible for scheduling:
// spec.settings.scheduling.visible, true when unset.
func SeedVisible(seed *v1alpha1.Seed) bool {
	s := seed.Spec.Settings
	return s == nil || s.Scheduling == nil || s.Scheduling.Visible
}

// SeedUnusableReason answers "may a scheduler place a new shoot on this
// seed?", as far as the seed alone decides (the shoot's filters come after):
// it says why not, or returns "" when it may. A usable seed is not being
// deleted, is visible for scheduling and is ready by SeedReadiness.
func SeedUnusableReason(seed *v1alpha1.Seed) string {
	switch {
	case seed.DeletionTimestamp != nil:
		return "seed is being deleted"
	case !SeedVisible(seed):
		return "seed is not visible for scheduling (spec.settings.scheduling.visible is false)"
	}
	_, reason := SeedReadiness(seed)
	return reason
}

// SeedReadiness answers "is the seed reconciled and ready?": it has a
// status.lastOperation, its GardenletReady condition is True and, when it has
// spec.backup, so is BackupBucketsReady. It returns True and "" when it is;
// otherwise the status of the first check that fails (Unknown for a seed never
// reconciled or a missing condition) and why.
func SeedReadiness(seed *v1alpha1.Seed) (v1alpha1.ConditionStatus, string) {
	return seedReadiness(seed, seed.Spec.Backup != nil)
}

// SeedGardenletReadiness answers "is the seed's agent ready?": the seed has a
// status.lastOperation and its GardenletReady condition is True. Backup buckets
// do not count (see the comment on the three questions above). It returns
// True and "" when ready, otherwise the status of the first check that fails
// and why.
func SeedGardenletReadiness(seed *v1alpha1.Seed) (v1alpha1.ConditionStatus, string) {
	return seedReadiness(seed, false)
}

func seedReadiness(seed *v1alpha1.Seed, backup bool) (v1alpha1.ConditionStatus, string) {
	if seed.Status.LastOperation == nil {
		return v1alpha1.ConditionUnknown, "seed has no status.lastOperation yet"
	}
	if status, reason := conditionNotTrue(seed.Status.Conditions, v1alpha1.SeedGardenletReady); reason != "" {
		return status, reason
	}
	if backup {
		if status, reason := conditionNotTrue(seed.Status.Conditions, v1alpha1.SeedBackupBucketsReady); reason != "" {
			return status, reason + " (the seed has spec.backup)"
		}
	}
	return v1alpha1.ConditionTrue, ""
}
