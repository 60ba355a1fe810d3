package helper

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

type seedOption func(*v1alpha1.Seed)

func condition(t v1alpha1.ConditionType, s v1alpha1.ConditionStatus) seedOption {
	return func(seed *v1alpha1.Seed) {
		seed.Status.Conditions = append(seed.Status.Conditions, v1alpha1.Condition{Type: t, Status: s})
	}
}

func withBackup(seed *v1alpha1.Seed) { seed.Spec.Backup = &v1alpha1.SeedBackup{} }

func withoutLastOperation(seed *v1alpha1.Seed) { seed.Status.LastOperation = nil }

func invisible(seed *v1alpha1.Seed) {
	seed.Spec.Settings = &v1alpha1.SeedSettings{Scheduling: &v1alpha1.SeedSettingScheduling{Visible: false}}
}

func deleting(seed *v1alpha1.Seed) { seed.DeletionTimestamp = &metav1.Time{} }

func newSeed(opts ...seedOption) *v1alpha1.Seed {
	seed := &v1alpha1.Seed{ObjectMeta: metav1.ObjectMeta{Name: "s"}}
	seed.Status.LastOperation = &v1alpha1.LastOperation{Type: v1alpha1.LastOperationTypeReconcile, State: v1alpha1.LastOperationStateSucceeded}
	for _, o := range opts {
		o(seed)
	}
	return seed
}

var (
	gardenletTrue  = condition(v1alpha1.SeedGardenletReady, v1alpha1.ConditionTrue)
	gardenletFalse = condition(v1alpha1.SeedGardenletReady, v1alpha1.ConditionFalse)
	backupTrue     = condition(v1alpha1.SeedBackupBucketsReady, v1alpha1.ConditionTrue)
	backupFalse    = condition(v1alpha1.SeedBackupBucketsReady, v1alpha1.ConditionFalse)
)

func TestGetCondition(t *testing.T) {
	conds := []v1alpha1.Condition{
		{Type: v1alpha1.SeedBackupBucketsReady, Status: v1alpha1.ConditionFalse},
		{Type: v1alpha1.SeedGardenletReady, Status: v1alpha1.ConditionTrue},
	}
	if c := GetCondition(conds, v1alpha1.SeedGardenletReady); c != &conds[1] {
		t.Errorf("GetCondition(GardenletReady) = %v, want the second condition", c)
	}
	if c := GetCondition(conds, "Other"); c != nil {
		t.Errorf("GetCondition(Other) = %v, want nil", c)
	}
	for _, tc := range []struct {
		t    v1alpha1.ConditionType
		want v1alpha1.ConditionStatus
	}{
		{v1alpha1.SeedGardenletReady, v1alpha1.ConditionTrue},
		{v1alpha1.SeedBackupBucketsReady, v1alpha1.ConditionFalse},
		{"Other", v1alpha1.ConditionUnknown},
	} {
		if got := ConditionStatus(conds, tc.t); got != tc.want {
			t.Errorf("ConditionStatus(%s) = %s, want %s", tc.t, got, tc.want)
		}
	}
}

func TestSeedRules(t *testing.T) {
	type answer struct {
		status v1alpha1.ConditionStatus
		reason string
	}
	ready := answer{v1alpha1.ConditionTrue, ""}
	for _, tc := range []struct {
		name string
		seed *v1alpha1.Seed
		// unusable is SeedUnusableReason; readiness SeedReadiness;
		// gardenlet SeedGardenletReadiness.
		unusable  string
		readiness answer
		gardenlet answer
	}{
		{name: "ready", seed: newSeed(gardenletTrue), readiness: ready, gardenlet: ready},
		{name: "being deleted", seed: newSeed(gardenletTrue, deleting),
			unusable: "seed is being deleted", readiness: ready, gardenlet: ready},
		{name: "invisible", seed: newSeed(gardenletTrue, invisible),
			unusable: "seed is not visible for scheduling (spec.settings.scheduling.visible is false)", readiness: ready, gardenlet: ready},
		{name: "never reconciled", seed: newSeed(gardenletTrue, withoutLastOperation),
			unusable:  "seed has no status.lastOperation yet",
			readiness: answer{v1alpha1.ConditionUnknown, "seed has no status.lastOperation yet"},
			gardenlet: answer{v1alpha1.ConditionUnknown, "seed has no status.lastOperation yet"}},
		{name: "gardenlet missing", seed: newSeed(),
			unusable:  "condition GardenletReady is missing",
			readiness: answer{v1alpha1.ConditionUnknown, "condition GardenletReady is missing"},
			gardenlet: answer{v1alpha1.ConditionUnknown, "condition GardenletReady is missing"}},
		{name: "gardenlet false", seed: newSeed(gardenletFalse),
			unusable:  "condition GardenletReady is False",
			readiness: answer{v1alpha1.ConditionFalse, "condition GardenletReady is False"},
			gardenlet: answer{v1alpha1.ConditionFalse, "condition GardenletReady is False"}},
		{name: "gardenlet progressing", seed: newSeed(condition(v1alpha1.SeedGardenletReady, v1alpha1.ConditionProgressing)),
			unusable:  "condition GardenletReady is Progressing",
			readiness: answer{v1alpha1.ConditionProgressing, "condition GardenletReady is Progressing"},
			gardenlet: answer{v1alpha1.ConditionProgressing, "condition GardenletReady is Progressing"}},
		{name: "backup buckets failing without spec.backup do not count", seed: newSeed(gardenletTrue, backupFalse),
			readiness: ready, gardenlet: ready},
		{name: "backup ready", seed: newSeed(gardenletTrue, backupTrue, withBackup), readiness: ready, gardenlet: ready},
		{name: "backup failing keeps new shoots away but the agent is ready", seed: newSeed(gardenletTrue, backupFalse, withBackup),
			unusable:  "condition BackupBucketsReady is False (the seed has spec.backup)",
			readiness: answer{v1alpha1.ConditionFalse, "condition BackupBucketsReady is False (the seed has spec.backup)"},
			gardenlet: ready},
		{name: "backup condition missing", seed: newSeed(gardenletTrue, withBackup),
			unusable:  "condition BackupBucketsReady is missing (the seed has spec.backup)",
			readiness: answer{v1alpha1.ConditionUnknown, "condition BackupBucketsReady is missing (the seed has spec.backup)"},
			gardenlet: ready},
		{name: "the agent comes before backup", seed: newSeed(gardenletFalse, backupFalse, withBackup),
			unusable:  "condition GardenletReady is False",
			readiness: answer{v1alpha1.ConditionFalse, "condition GardenletReady is False"},
			gardenlet: answer{v1alpha1.ConditionFalse, "condition GardenletReady is False"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := SeedUnusableReason(tc.seed); got != tc.unusable {
				t.Errorf("SeedUnusableReason = %q, want %q", got, tc.unusable)
			}
			if s, r := SeedReadiness(tc.seed); (answer{s, r}) != tc.readiness {
				t.Errorf("SeedReadiness = %s %q, want %s %q", s, r, tc.readiness.status, tc.readiness.reason)
			}
			if s, r := SeedGardenletReadiness(tc.seed); (answer{s, r}) != tc.gardenlet {
				t.Errorf("SeedGardenletReadiness = %s %q, want %s %q", s, r, tc.gardenlet.status, tc.gardenlet.reason)
			}
		})
	}
}

func TestSeedVisible(t *testing.T) {
	for _, tc := range []struct {
		name     string
		settings *v1alpha1.SeedSettings
		want     bool
	}{
		{"no settings", nil, true},
		{"no scheduling settings", &v1alpha1.SeedSettings{}, true},
		{"visible", &v1alpha1.SeedSettings{Scheduling: &v1alpha1.SeedSettingScheduling{Visible: true}}, true},
		{"invisible", &v1alpha1.SeedSettings{Scheduling: &v1alpha1.SeedSettingScheduling{Visible: false}}, false},
	} {
		seed := &v1alpha1.Seed{}
		seed.Spec.Settings = tc.settings
		if got := SeedVisible(seed); got != tc.want {
			t.Errorf("%s: SeedVisible = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestFormatTaint(t *testing.T) {
	for _, tc := range []struct {
		name  string
		taint v1alpha1.SeedTaint
		want  string
	}{
		{"key and effect", v1alpha1.SeedTaint{Key: "k", Effect: v1alpha1.TaintEffectNoExecute}, "k:NoExecute"},
		{"value", v1alpha1.SeedTaint{Key: "k", Value: ptr.To("v"), Effect: v1alpha1.TaintEffectPreferNoSchedule}, "k=v:PreferNoSchedule"},
		{"empty value is left out, as kubectl does", v1alpha1.SeedTaint{Key: "k", Value: ptr.To(""), Effect: v1alpha1.TaintEffectNoSchedule}, "k:NoSchedule"},
		{"no effect means NoSchedule", v1alpha1.SeedTaint{Key: "seed.gardener.cloud/protected"}, "seed.gardener.cloud/protected:NoSchedule"},
		{"timeAdded is not shown", v1alpha1.SeedTaint{Key: "k", Effect: v1alpha1.TaintEffectNoExecute, TimeAdded: &metav1.Time{}}, "k:NoExecute"},
	} {
		if got := FormatTaint(tc.taint); got != tc.want {
			t.Errorf("%s: FormatTaint = %q, want %q", tc.name, got, tc.want)
		}
	}
	taints := []v1alpha1.SeedTaint{{Key: "a"}, {Key: "b", Value: ptr.To("x"), Effect: v1alpha1.TaintEffectNoExecute}}
	if got, want := FormatTaints(taints, ","), "a:NoSchedule,b=x:NoExecute"; got != want {
		t.Errorf("FormatTaints = %q, want %q", got, want)
	}
	if got := FormatTaints(nil, ","); got != "<none>" {
		t.Errorf("FormatTaints(nil) = %q, want <none>", got)
	}
}

func TestTaintEffectOfAndSameTaint(t *testing.T) {
	for _, tc := range []struct {
		effect, want v1alpha1.TaintEffect
	}{
		{"", v1alpha1.TaintEffectNoSchedule},
		{v1alpha1.TaintEffectNoSchedule, v1alpha1.TaintEffectNoSchedule},
		{v1alpha1.TaintEffectPreferNoSchedule, v1alpha1.TaintEffectPreferNoSchedule},
		{v1alpha1.TaintEffectNoExecute, v1alpha1.TaintEffectNoExecute},
	} {
		if got := TaintEffectOf(v1alpha1.SeedTaint{Key: "k", Effect: tc.effect}); got != tc.want {
			t.Errorf("TaintEffectOf(%q) = %s, want %s", tc.effect, got, tc.want)
		}
	}
	base := v1alpha1.SeedTaint{Key: "k", Value: ptr.To("v"), Effect: v1alpha1.TaintEffectNoExecute}
	for _, tc := range []struct {
		name  string
		other v1alpha1.SeedTaint
		want  bool
	}{
		{"same", v1alpha1.SeedTaint{Key: "k", Value: ptr.To("v"), Effect: v1alpha1.TaintEffectNoExecute}, true},
		{"timeAdded ignored", v1alpha1.SeedTaint{Key: "k", Value: ptr.To("v"), Effect: v1alpha1.TaintEffectNoExecute, TimeAdded: &metav1.Time{}}, true},
		{"other key", v1alpha1.SeedTaint{Key: "x", Value: ptr.To("v"), Effect: v1alpha1.TaintEffectNoExecute}, false},
		{"other value", v1alpha1.SeedTaint{Key: "k", Value: ptr.To("w"), Effect: v1alpha1.TaintEffectNoExecute}, false},
		{"no value", v1alpha1.SeedTaint{Key: "k", Effect: v1alpha1.TaintEffectNoExecute}, false},
		{"other effect", v1alpha1.SeedTaint{Key: "k", Value: ptr.To("v"), Effect: v1alpha1.TaintEffectNoSchedule}, false},
	} {
		if got := SameTaint(base, tc.other); got != tc.want {
			t.Errorf("%s: SameTaint = %v, want %v", tc.name, got, tc.want)
		}
	}
	if SameTaint(v1alpha1.SeedTaint{Key: "k"}, v1alpha1.SeedTaint{Key: "k", Effect: v1alpha1.TaintEffectNoSchedule}) {
		t.Error("an empty effect and NoSchedule compare equal; a rewrite of the field would go unnoticed")
	}
}

func TestFormatToleration(t *testing.T) {
	for _, tc := range []struct {
		name string
		tol  v1alpha1.Toleration
		want string
	}{
		{"key only matches every effect", v1alpha1.Toleration{Key: "k"}, "k"},
		{"effect", v1alpha1.Toleration{Key: "k", Effect: v1alpha1.TaintEffectNoSchedule}, "k:NoSchedule"},
		{"value and effect", v1alpha1.Toleration{Key: "k", Value: ptr.To("v"), Effect: v1alpha1.TaintEffectNoExecute}, "k=v:NoExecute"},
		{"empty value is left out", v1alpha1.Toleration{Key: "k", Value: ptr.To("")}, "k"},
		{"value without effect", v1alpha1.Toleration{Key: "k", Value: ptr.To("v")}, "k=v"},
		{"tolerationSeconds", v1alpha1.Toleration{Key: "k", Effect: v1alpha1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](300)}, "k:NoExecute for 300s"},
		{"zero seconds", v1alpha1.Toleration{Key: "k", TolerationSeconds: ptr.To[int64](0)}, "k for 0s"},
	} {
		if got := FormatToleration(tc.tol); got != tc.want {
			t.Errorf("%s: FormatToleration = %q, want %q", tc.name, got, tc.want)
		}
	}
	tols := []v1alpha1.Toleration{{Key: "a"}, {Key: "b", Effect: v1alpha1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](60)}}
	if got, want := FormatTolerations(tols, ","), "a,b:NoExecute for 60s"; got != want {
		t.Errorf("FormatTolerations = %q, want %q", got, want)
	}
	if got := FormatTolerations(nil, ","); got != "<none>" {
		t.Errorf("FormatTolerations(nil) = %q, want <none>", got)
	}
}

func TestShootSchedulerName(t *testing.T) {
	for _, tc := range []struct {
		name *string
		want string
	}{
		{nil, v1alpha1.DefaultSchedulerName},
		{ptr.To(""), v1alpha1.DefaultSchedulerName},
		{ptr.To("custom"), "custom"},
	} {
		shoot := &v1alpha1.Shoot{}
		shoot.Spec.SchedulerName = tc.name
		if got := ShootSchedulerName(shoot); got != tc.want {
			t.Errorf("ShootSchedulerName(%v) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestShootBound(t *testing.T) {
	for _, tc := range []struct {
		seed *string
		want bool
	}{
		{nil, false},
		{ptr.To(""), false},
		{ptr.To("seed-a"), true},
	} {
		shoot := &v1alpha1.Shoot{}
		shoot.Spec.SeedName = tc.seed
		if got := ShootBound(shoot); got != tc.want {
			t.Errorf("ShootBound(%v) = %v, want %v", tc.seed, got, tc.want)
		}
	}
}
