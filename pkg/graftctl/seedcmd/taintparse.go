package seedcmd

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"
)

// TaintChanges are the taints a command adds or overwrites and the taints it removes.
// A removal without an effect removes every taint with that key.
type TaintChanges struct {
	Add    []corev1alpha1.SeedTaint
	Remove []corev1alpha1.SeedTaint
}

// IsTaintArg reports whether a command-line argument is a taint change rather
// than a seed name. Seed names never contain '=' or ':' and never end in '-'.
func IsTaintArg(arg string) bool {
	return strings.Contains(arg, "=") || strings.Contains(arg, ":") || strings.HasSuffix(arg, "-")
}

// ParseTaints turns taint arguments into TaintChanges. It rejects malformed specs, unknown
// effects, additions without an effect, duplicate additions, and a taint that is
// both added and removed.
func ParseTaints(args []string) (TaintChanges, error) {
	var c TaintChanges
	seen := map[string]bool{}
	for _, arg := range args {
		if strings.HasSuffix(arg, "-") {
			t, err := parseOne(strings.TrimSuffix(arg, "-"))
			if err != nil {
				return TaintChanges{}, err
			}
			c.Remove = append(c.Remove, corev1alpha1.SeedTaint{Key: t.Key, Effect: t.Effect})
			continue
		}
		t, err := parseOne(arg)
		if err != nil {
			return TaintChanges{}, err
		}
		if t.Effect == "" {
			return TaintChanges{}, fmt.Errorf("invalid taint spec: %v", arg)
		}
		id := t.Key + ":" + string(t.Effect)
		if seen[id] {
			return TaintChanges{}, fmt.Errorf("duplicated taints with the same key and effect: %v", helper.FormatTaint(t))
		}
		seen[id] = true
		c.Add = append(c.Add, t)
	}
	if err := c.checkConflicts(); err != nil {
		return TaintChanges{}, err
	}
	return c, nil
}

// checkConflicts refuses to add and remove the same taint in one command: the
// result would depend on the order of the arguments.
func (c TaintChanges) checkConflicts() error {
	var conflicts []string
	for _, add := range c.Add {
		for _, rm := range c.Remove {
			if add.Key != rm.Key {
				continue
			}
			if rm.Effect == "" || add.Effect == rm.Effect {
				conflicts = append(conflicts, fmt.Sprintf("%s=%s", rm.Key, rm.Effect))
			}
		}
	}
	if len(conflicts) > 0 {
		return fmt.Errorf("can not both modify and remove the following taint(s) in the same command: %s", strings.Join(conflicts, ", "))
	}
	return nil
}

// parseOne parses KEY, KEY:EFFECT or KEY=VALUE:EFFECT.
func parseOne(spec string) (corev1alpha1.SeedTaint, error) {
	var t corev1alpha1.SeedTaint
	parts := strings.Split(spec, ":")
	switch len(parts) {
	case 1:
		t.Key = parts[0]
	case 2:
		effect := corev1alpha1.TaintEffect(parts[1])
		if err := ValidateTaintEffect(effect); err != nil {
			return t, err
		}
		t.Effect = effect
		kv := strings.Split(parts[0], "=")
		if len(kv) > 2 {
			return t, fmt.Errorf("invalid taint spec: %v", spec)
		}
		t.Key = kv[0]
		if len(kv) == 2 {
			value := kv[1]
			if errs := validation.IsValidLabelValue(value); len(errs) > 0 {
				return t, fmt.Errorf("invalid taint spec: %v, %s", spec, strings.Join(errs, "; "))
			}
			t.Value = &value
		}
	default:
		return t, fmt.Errorf("invalid taint spec: %v", spec)
	}
	if errs := validation.IsQualifiedName(t.Key); len(errs) > 0 {
		return t, fmt.Errorf("invalid taint spec: %v, %s", spec, strings.Join(errs, "; "))
	}
	return t, nil
}

// ValidateTaintEffect accepts the three effects a seed taint may have.
func ValidateTaintEffect(effect corev1alpha1.TaintEffect) error {
	switch effect {
	case corev1alpha1.TaintEffectNoSchedule, corev1alpha1.TaintEffectPreferNoSchedule, corev1alpha1.TaintEffectNoExecute:
		return nil
	}
	return fmt.Errorf("invalid taint effect: %v, unsupported taint effect", effect)
}

// removalString renders a removal as its argument is written, KEY or
// KEY:EFFECT (without the trailing '-'): a removal names taints, it is not one.
func removalString(rm corev1alpha1.SeedTaint) string {
	if rm.Effect == "" {
		return rm.Key
	}
	return rm.Key + ":" + string(rm.Effect)
}
