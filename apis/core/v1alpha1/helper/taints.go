package helper

import (
	"strconv"
	"strings"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

// TaintEffectOf returns the effect a taint has: its own, or NoSchedule when it
// has none, because taints without effect always kept shoots off a seed.
func TaintEffectOf(taint v1alpha1.SeedTaint) v1alpha1.TaintEffect {
	if taint.Effect == "" {
		return v1alpha1.TaintEffectNoSchedule
	}
	return taint.Effect
}

// SameTaint tells whether two taints have the same key, value and effect as
// written (an empty effect differs from NoSchedule here, so that a rewrite of
// the field counts as a change). timeAdded is not compared.
func SameTaint(a, b v1alpha1.SeedTaint) bool {
	return a.Key == b.Key && a.Effect == b.Effect && equalValue(a.Value, b.Value)
}

func equalValue(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// FormatTaint writes a taint as kubectl writes node taints: key=value:Effect,
// or key:Effect when the value is empty. The effect is the one the taint has
// (see TaintEffectOf), so a taint without effect reads key:NoSchedule.
func FormatTaint(t v1alpha1.SeedTaint) string {
	var b strings.Builder
	b.WriteString(t.Key)
	if t.Value != nil && *t.Value != "" {
		b.WriteString("=")
		b.WriteString(*t.Value)
	}
	b.WriteString(":")
	b.WriteString(string(TaintEffectOf(t)))
	return b.String()
}

// FormatTaints writes taints with FormatTaint, joined by sep, or "<none>"
// when there are none.
func FormatTaints(taints []v1alpha1.SeedTaint, sep string) string {
	if len(taints) == 0 {
		return "<none>"
	}
	parts := make([]string, len(taints))
	for i, t := range taints {
		parts[i] = FormatTaint(t)
	}
	return strings.Join(parts, sep)
}

// FormatToleration writes a toleration in the taint's form: key=value:Effect,
// the value left out when empty and the effect when the toleration matches
// every effect, followed by " for Ns" when tolerationSeconds limits it.
func FormatToleration(t v1alpha1.Toleration) string {
	var b strings.Builder
	b.WriteString(t.Key)
	if t.Value != nil && *t.Value != "" {
		b.WriteString("=")
		b.WriteString(*t.Value)
	}
	if t.Effect != "" {
		b.WriteString(":")
		b.WriteString(string(t.Effect))
	}
	if t.TolerationSeconds != nil {
		b.WriteString(" for ")
		b.WriteString(strconv.FormatInt(*t.TolerationSeconds, 10))
		b.WriteString("s")
	}
	return b.String()
}

// FormatTolerations writes tolerations with FormatToleration, joined by sep,
// or "<none>" when there are none.
func FormatTolerations(tolerations []v1alpha1.Toleration, sep string) string {
	if len(tolerations) == 0 {
		return "<none>"
	}
	parts := make([]string, len(tolerations))
	for i, t := range tolerations {
		parts[i] = FormatToleration(t)
	}
	return strings.Join(parts, sep)
}
