package comehome

import "github.com/graft-dev/graft/pkg/descheduler/framework"

// Register adds the plugin to a registry.
func Register(r framework.Registry) {
	r.Register(Name, framework.NewFactory(Default, Validate, New))
}
