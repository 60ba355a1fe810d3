package comehome

import "github.com/graft-dev/graft/pkg/descheduler/framework"

// Name is the plugin's configuration name.
const Name = "ComeHome"

// Args are the plugin's arguments.
type Args struct {
	framework.ChurnArgs
}
