// Command image builds graft's container images without a container engine
// or a registry: it compiles static binaries for this machine's architecture
// and writes each image as an OCI image layout in a tar, ready for
//
//	ctr -n k8s.io images import FILE.tar
//
// on a node whose kubelet then runs it with imagePullPolicy Never (hack/kind.sh
// load does that for each node of the kind cluster).
// The Dockerfile stays the way to build the published image; the graft image
// built here has the same layout.
//
// Command line (from the repository root):
//
//	go run ./hack/image graft --out FILE.tar [--tag REF] [--version V]
//	    [--git-commit SHA] [--git-tree-state clean|dirty] [--build-date RFC3339]
//	    [--ca-certificates FILE]
//	go run ./hack/image pause --out FILE.tar [--tag REF] [--version V] [--build-date RFC3339]
//	make images    # both, into _output/images/{graft,pause}.tar, stamped as by make build
//
// On success it prints one line, "FILE.tar: REF sha256:DIGEST" (the manifest
// digest). Exit code 2 is a usage error, 1 a failed build.
//
// REF is a full reference with registry and tag; without --tag it is
// localhost/graft/graft:VERSION or localhost/graft/pause:VERSION, VERSION
// being --version or, as in the Makefile, `git describe --tags --match 'v*'
// --dirty` (v0.0.0-dev outside a tagged checkout), with characters a tag
// cannot hold ('+') turned into '-'. The archive names the image with REF
// in two annotations of its index.json, org.opencontainers.image.ref.name and
// io.containerd.image.name, so the import needs no --base-name and
// `ctr -n k8s.io images ls` lists it as REF.
//
// The graft image (the Dockerfile's, rebuilt without its base image):
//   - every command under cmd/ in /usr/local/bin, mode 0755, owned 0:0, built
//     with CGO_ENABLED=0 -trimpath and the Makefile's version -ldflags plus
//     the Dockerfile's -s -w;
//   - /etc/passwd and /etc/group naming 65532 nonroot with home
//     /home/nonroot (0700, owned by it), /etc/nsswitch.conf, /tmp (1777) and,
//     unless --ca-certificates is empty, this machine's CA bundle as
//     /etc/ssl/certs/ca-certificates.crt: what the distroless nonroot base
//     gives the published image;
//   - config: User 65532:65532, Entrypoint [/usr/local/bin/graftctl],
//     WorkingDir /home/nonroot, PATH (and SSL_CERT_FILE), linux and the host's
//     architecture.
//
// The charts choose their binary with the container's command and run with a
// read-only root filesystem, mounting /etc/graft and /tmp; install them with
//
//	--set image.repository=localhost/graft/graft --set image.tag=VERSION --set image.pullPolicy=Never
//
// The pause image is the pod sandbox: the static program of
// hack/image/pause at /pause, Entrypoint [/pause], User 65535:65535. It stays
// up until SIGTERM or SIGINT and reaps orphaned children. Point containerd's
// CRI plugin at it so that no pod needs registry.k8s.io/pause, e.g. for
// containerd 1.6:
//
//	[plugins."io.containerd.grpc.v1.cri"]
//	  sandbox_image = "localhost/graft/pause:VERSION"
//
// --build-date (default now) is also the image's creation time and the time
// of every file in its layer, and files carry no user names: the same
// binaries and flags give the same image digest.
package main
