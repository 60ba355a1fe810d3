package seedcmd

import (
	"fmt"
	"strings"
	"time"

	utilerrors "k8s.io/apimachinery/pkg/util/errors"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"
	"github.com/graft-dev/graft/pkg/taintclock"
)

// TaintOperation is what a taint command did to a seed, as printed after its name.
type TaintOperation string

const (
	// Tainted means taints were only added.
	Tainted TaintOperation = "tainted"
	// Untainted means taints were only removed, or nothing changed.
	Untainted TaintOperation = "untainted"
	// Modified means taints were overwritten, or added and removed together.
	Modified TaintOperation = "modified"
)

// sameTaint reports whether two taints occupy the same slot: a seed holds at
// most one taint per key and effect.
func sameTaint(a, b corev1alpha1.SeedTaint) bool {
	return a.Key == b.Key && helper.TaintEffectOf(a) == helper.TaintEffectOf(b)
}

// ApplyTaints computes a seed's new taints from its current ones at now. Without
// overwrite it refuses to replace a taint with the same key and effect. An
// added NoExecute taint gets timeAdded now (other effects carry none, as
// Kubernetes writes it for NoExecute taints only); overwriting a taint with
// the same key, value and effect keeps the one on the seed with its
// timeAdded, so that the tolerations of its shoots do not start over, while a
// new value is a new taint with a new time. It returns what happened and the
// new list; the input is not modified.
func ApplyTaints(seedName string, current []corev1alpha1.SeedTaint, c TaintChanges, overwrite bool, now time.Time) (TaintOperation, []corev1alpha1.SeedTaint, error) {
	if !overwrite {
		var existing []string
		for _, add := range c.Add {
			for _, old := range current {
				if sameTaint(add, old) {
					existing = append(existing, add.Key)
				}
			}
		}
		if len(existing) > 0 {
			return "", nil, fmt.Errorf("seed %s already has %v taint(s) with same effect(s) and --overwrite is false", seedName, strings.Join(existing, ","))
		}
	}

	next := make([]corev1alpha1.SeedTaint, 0, len(current)+len(c.Add))
	for _, add := range c.Add {
		next = append(next, added(current, add, now))
	}
	for _, old := range current {
		replaced := false
		for _, add := range c.Add {
			if sameTaint(add, old) {
				replaced = true
				break
			}
		}
		if !replaced {
			next = append(next, old)
		}
	}
	added := len(next) != len(current)

	var errs []error
	removed := false
	for _, rm := range c.Remove {
		before := len(next)
		kept := next[:0:0]
		for _, t := range next {
			if t.Key == rm.Key && (rm.Effect == "" || helper.TaintEffectOf(t) == rm.Effect) {
				continue
			}
			kept = append(kept, t)
		}
		next = kept
		if len(next) == before {
			errs = append(errs, fmt.Errorf("taint %q not found", removalString(rm)))
		} else {
			removed = true
		}
	}
	if err := utilerrors.NewAggregate(errs); err != nil {
		return "", nil, err
	}

	switch {
	case overwrite || (added && removed):
		return Modified, next, nil
	case added:
		return Tainted, next, nil
	default:
		return Untainted, next, nil
	}
}

// added is the taint that adding add to current puts on the seed: the same
// taint already there, or add with its timeAdded.
func added(current []corev1alpha1.SeedTaint, add corev1alpha1.SeedTaint, now time.Time) corev1alpha1.SeedTaint {
	for _, old := range current {
		if taintclock.Same(old, add) {
			return old
		}
	}
	return taintclock.Added(add, now)
}

// HasTaint reports whether taints hold one with the given key and effect.
func HasTaint(taints []corev1alpha1.SeedTaint, key string, effect corev1alpha1.TaintEffect) bool {
	for _, t := range taints {
		if t.Key == key && helper.TaintEffectOf(t) == effect {
			return true
		}
	}
	return false
}
