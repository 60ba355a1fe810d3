// Package descheduler holds graft-descheduler's integration tests: a real
// kube-apiserver (test/framework), graft-scheduler and graft-descheduler
// in-process. Run them with `go test -tags integration ./test/integration/descheduler/`.
package descheduler
