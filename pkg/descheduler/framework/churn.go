package framework

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

// Defaults of ChurnArgs.
const (
	DefaultMaxMovesPerPass = 5
	DefaultMaxMovesPerHour = 20
	DefaultCoolDown        = 7 * 24 * time.Hour
	// MinCoolDown is the shortest cool-down accepted: shorter ones let a
	// shoot be moved back and forth as usage drifts.
	MinCoolDown = time.Hour
)

// ChurnArgs are the arguments every improving plugin takes for its Churn,
// embedded in its own arguments.
type ChurnArgs struct {
	// MaxMovesPerPass bounds the plugin's moves in one pass window
	// (interval). Default 5; 0: no bound.
	MaxMovesPerPass *int32 `json:"maxMovesPerPass,omitempty"`
	// MaxMovesPerHour bounds the plugin's moves in any hour, across
	// restarts. Default 20; 0: no bound.
	MaxMovesPerHour *int32 `json:"maxMovesPerHour,omitempty"`
	// CoolDown is how long a shoot the descheduler moved, for any cause,
	// is not moved by an improving plugin. Default 168h (7 days); at least 1h.
	CoolDown *metav1.Duration `json:"coolDown,omitempty"`
}

// DefaultChurn fills the unset churn arguments.
func DefaultChurn(a *ChurnArgs) {
	if a.MaxMovesPerPass == nil {
		a.MaxMovesPerPass = ptr.To(int32(DefaultMaxMovesPerPass))
	}
	if a.MaxMovesPerHour == nil {
		a.MaxMovesPerHour = ptr.To(int32(DefaultMaxMovesPerHour))
	}
	if a.CoolDown == nil {
		a.CoolDown = &metav1.Duration{Duration: DefaultCoolDown}
	}
}

// ValidateChurn returns every invalid churn argument of defaulted args.
func ValidateChurn(a *ChurnArgs, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if *a.MaxMovesPerPass < 0 {
		errs = append(errs, field.Invalid(fldPath.Child("maxMovesPerPass"), *a.MaxMovesPerPass, "must not be negative"))
	}
	if *a.MaxMovesPerHour < 0 {
		errs = append(errs, field.Invalid(fldPath.Child("maxMovesPerHour"), *a.MaxMovesPerHour, "must not be negative"))
	}
	if a.CoolDown.Duration < MinCoolDown {
		errs = append(errs, field.Invalid(fldPath.Child("coolDown"), a.CoolDown.Duration.String(), "must be at least 1h, so that a shoot is not moved back and forth"))
	}
	return errs
}

// Churn is the bound the defaulted arguments set.
func (a ChurnArgs) Churn() Churn {
	return Churn{MaxMovesPerPass: int(*a.MaxMovesPerPass), MaxMovesPerHour: int(*a.MaxMovesPerHour), CoolDown: a.CoolDown.Duration}
}
