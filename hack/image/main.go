package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"syscall"
	"time"
)

const usage = `usage: go run ./hack/image graft|pause --out FILE.tar [flags]

Builds an OCI image archive for 'ctr -n k8s.io images import FILE.tar'.
  graft   the graft binaries in /usr/local/bin (the Dockerfile's image)
  pause   the pod sandbox image
Run 'go run ./hack/image graft -h' for the flags.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// options say which image to build and where to write it.
type options struct {
	Image string // "graft" or "pause"
	Out   string
	Ref   string
	Stamp stamp
	// CABundle is the host file installed as the graft image's CA
	// certificates; "" leaves them out.
	CABundle string
}

// run is the command line; it returns the exit code: 2 for a usage error,
// 1 when building failed.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || (args[0] != "graft" && args[0] != "pause") {
		fmt.Fprint(stderr, usage)
		return 2
	}
	o := options{Image: args[0]}
	fs := flag.NewFlagSet(o.Image, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.Out, "out", "", "the archive to write (required)")
	fs.StringVar(&o.Ref, "tag", "", "the full reference the image is imported as (default localhost/graft/"+o.Image+":<version>)")
	fs.StringVar(&o.Stamp.Version, "version", "", "the version; also the default tag (default: git describe, as in the Makefile)")
	if o.Image == "graft" {
		fs.StringVar(&o.Stamp.GitCommit, "git-commit", "", "the commit stamped into the binaries (default: git rev-parse HEAD)")
		fs.StringVar(&o.Stamp.GitTreeState, "git-tree-state", "", "clean or dirty (default: from git status)")
		fs.StringVar(&o.CABundle, "ca-certificates", "/etc/ssl/certs/ca-certificates.crt",
			"host file installed as the image's CA certificates, for graftctl talking to servers outside the cluster; empty for none")
	}
	fs.StringVar(&o.Stamp.BuildDate, "build-date", "", "RFC 3339 build time, also the image's creation time and the files' (default: now)")
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if o.Out == "" || fs.NArg() > 0 {
		fmt.Fprintf(stderr, "%s: --out is required and there are no arguments\n", o.Image)
		fs.Usage()
		return 2
	}
	o.Stamp.fillFromGit(ctx, time.Now())
	if o.Ref == "" {
		o.Ref = defaultRef(o.Image, o.Stamp.Version)
	}
	if err := makeImage(ctx, o, stdout); err != nil {
		fmt.Fprintf(stderr, "image %s: %v\n", o.Image, err)
		return 1
	}
	return 0
}

// makeImage builds the binaries of o.Image for this machine's architecture,
// puts them in an image and writes its archive.
func makeImage(ctx context.Context, o options, stdout io.Writer) error {
	ref, err := parseRef(o.Ref)
	if err != nil {
		return err
	}
	if err := o.Stamp.check(); err != nil {
		return err
	}
	created, _ := time.Parse(time.RFC3339, o.Stamp.BuildDate) // checked above
	if o.CABundle != "" {
		if _, err := os.Stat(o.CABundle); err != nil {
			return fmt.Errorf("--ca-certificates: %w (pass --ca-certificates= to build without)", err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(o.Out), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "graft-image-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	arch := runtime.GOARCH
	binDir := filepath.Join(tmp, "bin")
	var s spec
	switch o.Image {
	case "graft":
		// Every command, as the Dockerfile's ./cmd/...: the charts pick
		// theirs by the container's command.
		bins, err := goBuild(ctx, binDir, arch, o.Stamp.ldflags(), modulePath+"/cmd/...")
		if err != nil {
			return err
		}
		if s, err = graftSpec(arch, created, bins, o.CABundle); err != nil {
			return err
		}
	case "pause":
		// Nothing in pause reports a version: only the tag carries it.
		bins, err := goBuild(ctx, binDir, arch, "-s -w", modulePath+"/hack/image/pause")
		if err != nil {
			return err
		}
		s = pauseSpec(arch, created, bins[0])
	}
	img, err := buildImage(s, tmp)
	if err != nil {
		return err
	}
	digest, err := writeArchive(o.Out, img, ref, arch)
	if err != nil {
		return fmt.Errorf("writing %s: %w", o.Out, err)
	}
	fmt.Fprintf(stdout, "%s: %s %s\n", o.Out, ref.Name(), digest)
	return nil
}
