package overcapacity

import "github.com/graft-dev/graft/apis/core/v1alpha1"

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
}
