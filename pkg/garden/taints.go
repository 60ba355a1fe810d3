package garden

import (
	"encoding/json"
	"fmt"
	"slices"

	apiequality "k8s.io/apimachinery/pkg/api/equality"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"
)

// Gardener's Seed taints and Shoot tolerations are a key and a value. graft
// keeps what they lack in annotations gardenlet leaves alone (it merges a
// Seed's annotations when it registers the seed): a seed taint's effect and
// timeAdded in AnnotationTaints, a toleration's tolerationSeconds in
// AnnotationTolerationSeconds. docs/gardener.md describes the format.

// gardenerTaint is Gardener's SeedTaint: a key and an optional value.
type gardenerTaint struct {
	Key   string  `json:"key"`
	Value *string `json:"value,omitempty"`
}

// SeedTaints returns taints as the API's spec.taints holds them, for a patch:
// graft's unchanged; on Gardener the NoSchedule and NoExecute taints as key
// and value, each once (a PreferNoSchedule taint lives in AnnotationTaints
// alone, so that Gardener's scheduler ignores it, as the effect means). It
// returns nil for none: in a merge patch null deletes the field, where an
// empty list would be stored as [].
func (a API) SeedTaints(taints []corev1alpha1.SeedTaint) any {
	if a != Gardener {
		if len(taints) == 0 {
			return nil
		}
		return taints
	}
	var out []gardenerTaint
	for _, t := range taints {
		if helper.TaintEffectOf(t) == corev1alpha1.TaintEffectPreferNoSchedule {
			continue
		}
		g := gardenerTaint{Key: t.Key, Value: t.Value}
		if !slices.ContainsFunc(out, func(o gardenerTaint) bool { return o.Key == g.Key && ptrEqual(o.Value, g.Value) }) {
			out = append(out, g)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// TaintEditLasts reports whether a change of a seed's taints outlives a
// restart of its agent: on Gardener gardenlet rewrites the Seed's spec.taints
// from its configuration at every start (and keeps its annotations), so a
// change of spec.taints lasts only where it was made in the seed's
// configuration object too (config, nil when the garden holds none).
func (a API) TaintEditLasts(config *SeedConfig, specChanged bool) bool {
	return a != Gardener || (config != nil && config.HasSeedConfig) || !specChanged
}

// SeedStatusOwned reports whether a seed's agent owns its status, capacity
// and allocatable included (gardenlet, on Gardener), which graft then only
// reads.
func (a API) SeedStatusOwned() bool { return a == Gardener }

// SameSpecTaints reports whether two lists of taints are the same in the
// API's spec.taints (on Gardener a PreferNoSchedule taint, or an effect,
// lives in AnnotationTaints alone).
func (a API) SameSpecTaints(x, y []corev1alpha1.SeedTaint) bool {
	return apiequality.Semantic.DeepEqual(a.SeedTaints(x), a.SeedTaints(y))
}

// TaintsPatch is a merge patch replacing the seed's spec.taints as a whole
// (merge patches replace lists) in the API's shape, and on Gardener the
// annotation keeping what Gardener's taints lack (TaintsAnnotation), pinning
// the resourceVersion it was computed from.
func (a API) TaintsPatch(seed *corev1alpha1.Seed, taints []corev1alpha1.SeedTaint) ([]byte, error) {
	metadata := map[string]any{"resourceVersion": seed.ResourceVersion}
	if annotation := TaintsAnnotation(taints); a == Gardener && (annotation != nil || seed.Annotations[corev1alpha1.AnnotationTaints] != "") {
		metadata["annotations"] = map[string]any{corev1alpha1.AnnotationTaints: annotation}
	}
	data, err := json.Marshal(map[string]any{"metadata": metadata, "spec": map[string]any{"taints": a.SeedTaints(taints)}})
	if err != nil {
		return nil, fmt.Errorf("encoding the taints patch: %w", err)
	}
	return data, nil
}

// TaintsAnnotation returns the value of AnnotationTaints for a Gardener Seed
// with taints, nil (no annotation) when every taint is a NoSchedule taint
// without timeAdded, which spec.taints says in full.
func TaintsAnnotation(taints []corev1alpha1.SeedTaint) *string {
	plain := true
	for _, t := range taints {
		plain = plain && helper.TaintEffectOf(t) == corev1alpha1.TaintEffectNoSchedule && t.TimeAdded == nil
	}
	if plain {
		return nil
	}
	data, err := json.Marshal(taints)
	if err != nil {
		return nil
	}
	s := string(data)
	return &s
}

// GardenerSeedTaints reads a Gardener Seed's taints as graft's: each key and
// value of spec.taints with the effects AnnotationTaints gives it
// (NoSchedule when it gives none), and the annotation's PreferNoSchedule
// taints. A NoSchedule or NoExecute taint of the annotation whose key and
// value spec.taints lacks (removed by hand, or by gardenlet from its
// configuration) counts no more. An annotation graft cannot read counts as
// absent.
func GardenerSeedTaints(spec []corev1alpha1.SeedTaint, annotation string) []corev1alpha1.SeedTaint {
	annotated := parseTaintsAnnotation(annotation)
	var out []corev1alpha1.SeedTaint
	for _, t := range spec {
		found := false
		for _, a := range annotated {
			if a.Key == t.Key && ptrEqual(a.Value, t.Value) && a.Effect != corev1alpha1.TaintEffectPreferNoSchedule {
				out = append(out, a)
				found = true
			}
		}
		if !found {
			out = append(out, corev1alpha1.SeedTaint{Key: t.Key, Value: t.Value, Effect: corev1alpha1.TaintEffectNoSchedule})
		}
	}
	for _, a := range annotated {
		if a.Effect == corev1alpha1.TaintEffectPreferNoSchedule {
			out = append(out, a)
		}
	}
	return out
}

// parseTaintsAnnotation returns the well-formed taints of an AnnotationTaints
// value; nil for a value that is not a JSON list of taints.
func parseTaintsAnnotation(annotation string) []corev1alpha1.SeedTaint {
	if annotation == "" {
		return nil
	}
	var taints []corev1alpha1.SeedTaint
	if err := json.Unmarshal([]byte(annotation), &taints); err != nil {
		return nil
	}
	return slices.DeleteFunc(taints, func(t corev1alpha1.SeedTaint) bool {
		switch t.Effect {
		case corev1alpha1.TaintEffectNoSchedule, corev1alpha1.TaintEffectNoExecute, corev1alpha1.TaintEffectPreferNoSchedule:
			return t.Key == ""
		}
		return true
	})
}

// maxTolerationSecondsAnnotation bounds what graft parses of a tenant's
// AnnotationTolerationSeconds on every read of its shoot; a longer value
// (far more than one entry per toleration needs) counts as absent.
const maxTolerationSecondsAnnotation = 4096

// TolerationLimit is one entry of AnnotationTolerationSeconds.
type TolerationLimit struct {
	Key               string  `json:"key"`
	Value             *string `json:"value,omitempty"`
	TolerationSeconds int64   `json:"tolerationSeconds"`
}

// gardenerTolerations reads a Gardener Shoot's tolerations as graft's: each
// of spec.tolerations tolerates every effect, for ever unless
// AnnotationTolerationSeconds limits it. The annotation is the tenant's: it
// applies only to tolerations spec.tolerations has (which Gardener's
// admission checked against the project's whitelist), and only shortens a
// stay (the shortest limit of a toleration applies; a negative one is 0).
// An annotation graft cannot read counts as absent.
func gardenerTolerations(spec []corev1alpha1.Toleration, annotation string) []corev1alpha1.Toleration {
	var limits []TolerationLimit
	if annotation != "" && (len(annotation) > maxTolerationSecondsAnnotation || json.Unmarshal([]byte(annotation), &limits) != nil) {
		limits = nil
	}
	out := make([]corev1alpha1.Toleration, 0, len(spec))
	for _, t := range spec {
		t.Effect, t.TolerationSeconds = "", nil
		for _, l := range limits {
			if l.Key != t.Key || !ptrEqual(l.Value, t.Value) {
				continue
			}
			seconds := max(l.TolerationSeconds, 0)
			if t.TolerationSeconds == nil || seconds < *t.TolerationSeconds {
				t.TolerationSeconds = &seconds
			}
		}
		out = append(out, t)
	}
	return out
}
