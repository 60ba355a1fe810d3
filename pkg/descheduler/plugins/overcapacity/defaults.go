package overcapacity

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

// DefaultMaxDeferral is a day: every daily window opens within it.
const DefaultMaxDeferral = 24 * time.Hour

// DefaultPurposeOrder evicts the least valuable clusters first.
var DefaultPurposeOrder = []v1alpha1.ShootPurpose{
	v1alpha1.ShootPurposeEvaluation,
	v1alpha1.ShootPurposeTesting,
	v1alpha1.ShootPurposeDevelopment,
	v1alpha1.ShootPurposeProduction,
	v1alpha1.ShootPurposeInfrastructure,
}

// Default fills the unset arguments.
func Default(args *Args) {
	if len(args.PurposeOrder) == 0 {
		args.PurposeOrder = append([]v1alpha1.ShootPurpose(nil), DefaultPurposeOrder...)
	}
	if args.MaxDeferral == nil {
		args.MaxDeferral = &metav1.Duration{Duration: DefaultMaxDeferral}
	}
}
