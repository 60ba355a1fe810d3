package comehome

import "github.com/graft-dev/graft/pkg/descheduler/framework"

// Default fills the unset arguments.
func Default(args *Args) { framework.DefaultChurn(&args.ChurnArgs) }
