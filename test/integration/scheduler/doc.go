// Package scheduler holds the integration tests of graft-scheduler: the
// scheduler runs in-process against the real kube-apiserver of
// test/framework. Run them with `go test -tags integration ./test/integration/scheduler/`.
package scheduler
