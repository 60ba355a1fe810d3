// Command pause is the process of a pod's sandbox container in the local
// pause image (go run ./hack/image pause). The sandbox holds the pod's
// namespaces for its containers, so this process only has to stay alive,
// exit 0 when the runtime stops the sandbox (SIGTERM or SIGINT), and, being
// PID 1 of a pod that shares its process namespace, reap the orphans that the
// kernel hands it so they do not pile up as zombies.
//
// It is a Go program rather than the upstream C one so that the image is
// built from this repository with nothing but the Go toolchain.
package main
