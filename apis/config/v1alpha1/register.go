package v1alpha1

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// GroupName is the group of graft's component configuration files.
const GroupName = "config.graft.dev"

// SchemeGroupVersion is the group and version of this package's kinds.
var SchemeGroupVersion = schema.GroupVersion{Group: GroupName, Version: "v1alpha1"}

// Configuration is implemented by every kind of this group. The loader needs
// nothing else to turn a file into a ready-to-use configuration.
type Configuration interface {
	runtime.Object
	// Default fills every unset field with its default, in place.
	Default()
	// Validate returns every invalid field at once (not only the first).
	Validate() field.ErrorList
	// Common returns the settings every component shares.
	Common() *CommonConfiguration
}

var (
	// SchemeBuilder collects the functions that add this group's kinds to a scheme.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)
	// AddToScheme adds this group's kinds to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

// addKnownTypes registers the kinds; each component adds its kind here, one line each.
func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(SchemeGroupVersion,
		&SchedulerConfiguration{},
		&DeschedulerConfiguration{},
		&CapacityAnnotatorConfiguration{},
	)
	return nil
}
