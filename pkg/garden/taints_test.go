package garden

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
)

// gardenerSeedWith returns the Gardener Seed a write of taints leaves: the
// spec.taints and the annotation graft writes.
func gardenerSeedWith(t *testing.T, taints []corev1alpha1.SeedTaint) *corev1alpha1.Seed {
	t.Helper()
	spec, err := json.Marshal(Gardener.SeedTaints(taints))
	if err != nil {
		t.Fatal(err)
	}
	annotations := map[string]string{}
	if a := TaintsAnnotation(taints); a != nil {
		annotations[corev1alpha1.AnnotationTaints] = *a
	}
	meta, _ := json.Marshal(map[string]any{"name": "s", "annotations": annotations})
	var seed corev1alpha1.Seed
	if err := Convert([]byte(`{"apiVersion":"core.gardener.cloud/v1beta1","kind":"Seed","metadata":`+string(meta)+`,"spec":{"taints":`+string(spec)+`}}`), &seed); err != nil {
		t.Fatal(err)
	}
	return &seed
}

// Every effect written to a Gardener Seed reads back as written: NoSchedule
// and NoExecute through spec.taints and the annotation, PreferNoSchedule
// through the annotation alone.
func TestGardenerSeedTaintsKeepTheirEffects(t *testing.T) {
	added := metav1.NewTime(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
	taints := []corev1alpha1.SeedTaint{
		{Key: "maintenance", Value: ptr.To("true"), Effect: corev1alpha1.TaintEffectNoExecute, TimeAdded: &added},
		{Key: "maintenance", Value: ptr.To("true"), Effect: corev1alpha1.TaintEffectNoSchedule},
		{Key: "seed.gardener.cloud/protected", Effect: corev1alpha1.TaintEffectNoSchedule},
		{Key: "soft", Effect: corev1alpha1.TaintEffectPreferNoSchedule},
	}
	seed := gardenerSeedWith(t, taints)
	if diff := cmp.Diff(taints, seed.Spec.Taints); diff != "" {
		t.Errorf("taints read back (-written +read):\n%s", diff)
	}
	plain := []corev1alpha1.SeedTaint{{Key: "a", Effect: corev1alpha1.TaintEffectNoSchedule}}
	if TaintsAnnotation(plain) != nil {
		t.Errorf("NoSchedule taints alone got an annotation: spec.taints says them in full")
	}
	if diff := cmp.Diff(plain, gardenerSeedWith(t, plain).Spec.Taints); diff != "" {
		t.Errorf("plain taints read back (-written +read):\n%s", diff)
	}
}

// spec.taints decides which taints keep shoots off: an annotated NoExecute
// taint whose key spec.taints lost (gardenlet rewrote the spec from its
// configuration) counts no more, and an annotation graft cannot read leaves
// Gardener's meaning.
func TestGardenerSeedTaintsFollowSpecTaints(t *testing.T) {
	annotation := `[{"key":"gone","effect":"NoExecute"},{"key":"kept","effect":"NoExecute"},{"key":"odd","effect":"Sometimes"}]`
	got := GardenerSeedTaints([]corev1alpha1.SeedTaint{{Key: "kept"}, {Key: "odd"}}, annotation)
	want := []corev1alpha1.SeedTaint{
		{Key: "kept", Effect: corev1alpha1.TaintEffectNoExecute},
		{Key: "odd", Effect: corev1alpha1.TaintEffectNoSchedule},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("taints (-want +got):\n%s", diff)
	}
	got = GardenerSeedTaints([]corev1alpha1.SeedTaint{{Key: "kept"}}, `{not json`)
	if diff := cmp.Diff([]corev1alpha1.SeedTaint{{Key: "kept", Effect: corev1alpha1.TaintEffectNoSchedule}}, got); diff != "" {
		t.Errorf("malformed annotation (-want +got):\n%s", diff)
	}
}

// A tenant's annotation can only shorten its shoot's stay under a NoExecute
// taint: it limits tolerations spec.tolerations has, never adds one, the
// shortest limit wins and a negative one means none.
func TestTenantTolerationSecondsOnlyShortenAStay(t *testing.T) {
	spec := []corev1alpha1.Toleration{
		{Key: "maintenance"},
		{Key: "dedicated", Value: ptr.To("team")},
		{Key: "forever"},
	}
	annotation := `[{"key":"maintenance","tolerationSeconds":600},{"key":"maintenance","tolerationSeconds":300},
		{"key":"dedicated","value":"team","tolerationSeconds":-5},
		{"key":"dedicated","value":"other","tolerationSeconds":10},
		{"key":"not-tolerated","tolerationSeconds":99999}]`
	got := gardenerTolerations(spec, annotation)
	want := []corev1alpha1.Toleration{
		{Key: "maintenance", TolerationSeconds: ptr.To[int64](300)},
		{Key: "dedicated", Value: ptr.To("team"), TolerationSeconds: ptr.To[int64](0)},
		{Key: "forever"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tolerations (-want +got):\n%s", diff)
	}
	if got := gardenerTolerations(spec, `[{"key":"maintenance","tolerationSeconds":"soon"}]`); got[0].TolerationSeconds != nil {
		t.Errorf("a malformed annotation limited a toleration: %+v", got[0])
	}
	// An oversized annotation is not parsed on every read of the shoot.
	huge := `[{"key":"maintenance","tolerationSeconds":1}` + strings.Repeat(`,{"key":"x","tolerationSeconds":1}`, 200) + `]`
	if got := gardenerTolerations(spec, huge); got[0].TolerationSeconds != nil {
		t.Errorf("an annotation of %d bytes was read: %+v", len(huge), got[0])
	}
}

// gardenlet rewrites spec.taints from its configuration and keeps the
// annotations: a PreferNoSchedule taint outlives its restart.
func TestPassingTaintsAreTheSpecTaintsTheConfigurationLacks(t *testing.T) {
	config := &SeedConfig{HasSeedConfig: true, Taints: []corev1alpha1.SeedTaint{{Key: "protected"}}}
	got := config.Passing([]corev1alpha1.SeedTaint{
		{Key: "protected", Effect: corev1alpha1.TaintEffectNoSchedule},
		{Key: "drain", Effect: corev1alpha1.TaintEffectNoExecute},
		{Key: "soft", Effect: corev1alpha1.TaintEffectPreferNoSchedule},
	})
	if len(got) != 1 || got[0].Key != "drain" {
		t.Errorf("passing taints %+v, want drain alone", got)
	}
}
