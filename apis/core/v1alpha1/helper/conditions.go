package helper

import (
	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

// GetCondition returns the condition of the given type, or nil when there is
// none. The pointer points into conditions.
func GetCondition(conditions []v1alpha1.Condition, t v1alpha1.ConditionType) *v1alpha1.Condition {
	for i := range conditions {
		if conditions[i].Type == t {
			return &conditions[i]
		}
	}
	return nil
}

// ConditionStatus returns the status of the condition of the given type, or
// Unknown when there is none: a condition nobody reported is not known to hold.
func ConditionStatus(conditions []v1alpha1.Condition, t v1alpha1.ConditionType) v1alpha1.ConditionStatus {
	if c := GetCondition(conditions, t); c != nil {
		return c.Status
	}
	return v1alpha1.ConditionUnknown
}

// conditionNotTrue says why the condition of the given type does not hold, or
// "" when it is True.
func conditionNotTrue(conditions []v1alpha1.Condition, t v1alpha1.ConditionType) (v1alpha1.ConditionStatus, string) {
	c := GetCondition(conditions, t)
	switch {
	case c == nil:
		return v1alpha1.ConditionUnknown, "condition " + string(t) + " is missing"
	case c.Status != v1alpha1.ConditionTrue:
		return c.Status, "condition " + string(t) + " is " + string(c.Status)
	}
	return v1alpha1.ConditionTrue, ""
}
