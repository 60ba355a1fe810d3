// Command image builds graft's container images (graft and pause) without a
// container engine or a registry, as OCI image layouts in tars:
//
//	go run ./hack/image graft --out FILE.tar [--tag REF] [--version V] ...
//	go run ./hack/image pause --out FILE.tar [--tag REF] [--version V] ...
//
// docs/images.md gives the flags, the images' layout and how to load them.
package main
