package main

import (
	"bytes"
	"context"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// modulePath is graft's module; packages are built by import path so that the
// program works from any directory of the checkout.
const modulePath = "github.com/graft-dev/graft"

// versionPkg is where the binaries keep the version they report
// (--version, graftctl version); the Makefile stamps the same variables.
const versionPkg = "k8s.io/component-base/version"

// stamp is the version information linked into the graft binaries.
type stamp struct {
	Version      string
	GitCommit    string
	GitTreeState string
	BuildDate    string
}

// ldflags are the linker flags of the graft binaries: the Makefile's version
// variables, and the Dockerfile's -s -w (no symbol table or DWARF: a smaller
// layer, and nobody debugs the image's binaries in place).
func (s stamp) ldflags() string {
	return strings.Join([]string{
		"-s", "-w",
		"-X", versionPkg + ".gitVersion=" + s.Version,
		"-X", versionPkg + ".gitCommit=" + s.GitCommit,
		"-X", versionPkg + ".gitTreeState=" + s.GitTreeState,
		"-X", versionPkg + ".buildDate=" + s.BuildDate,
	}, " ")
}

// check refuses values the linker flags could not carry: -ldflags is split on
// spaces, so a value with one would turn into a flag of its own.
func (s stamp) check() error {
	for name, v := range map[string]string{"version": s.Version, "git-commit": s.GitCommit, "git-tree-state": s.GitTreeState, "build-date": s.BuildDate} {
		if strings.ContainsAny(v, " \t\n'\"") {
			return fmt.Errorf("--%s %q: spaces and quotes cannot be stamped into the binaries", name, v)
		}
	}
	if _, err := time.Parse(time.RFC3339, s.BuildDate); err != nil {
		return fmt.Errorf("--build-date %q: want RFC 3339, e.g. 2026-01-02T15:04:05Z: %w", s.BuildDate, err)
	}
	return nil
}

// fillFromGit sets what the caller left empty the way the Makefile computes
// it, so that `go run ./hack/image` alone stamps what `make images` does.
func (s *stamp) fillFromGit(ctx context.Context, now time.Time) {
	if s.Version == "" {
		s.Version = gitOutput(ctx, "describe", "--tags", "--match", "v*", "--dirty")
		if s.Version == "" {
			s.Version = "v0.0.0-dev"
		}
	}
	if s.GitCommit == "" {
		s.GitCommit = gitOutput(ctx, "rev-parse", "HEAD")
	}
	if s.GitTreeState == "" {
		// No output means clean; so does not being in a git checkout at
		// all, as in the Makefile, whose test is the same.
		if gitOutput(ctx, "status", "--porcelain") == "" {
			s.GitTreeState = "clean"
		} else {
			s.GitTreeState = "dirty"
		}
	}
	if s.BuildDate == "" {
		s.BuildDate = now.UTC().Format(time.RFC3339)
	}
}

// gitOutput is git's trimmed output, or "" when git fails (no checkout, no
// tags): the caller falls back to a default then, as the Makefile does.
func gitOutput(ctx context.Context, args ...string) string {
	out, err := exec.CommandContext(ctx, "git", args...).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// goBuild builds the main packages pkgs into outDir as static Linux binaries
// for arch: the images have no libc to link against.
func goBuild(ctx context.Context, outDir, arch, ldflags string, pkgs ...string) ([]string, error) {
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, err
	}
	args := append([]string{"build", "-trimpath", "-ldflags", ldflags, "-o", outDir + string(filepath.Separator)}, pkgs...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+arch)
	var stderr bytes.Buffer
	cmd.Stdout = os.Stderr
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, stderr.String())
	}
	ents, err := os.ReadDir(outDir)
	if err != nil {
		return nil, err
	}
	var bins []string
	for _, e := range ents {
		if e.Type().IsRegular() {
			bins = append(bins, filepath.Join(outDir, e.Name()))
		}
	}
	if len(bins) == 0 {
		return nil, fmt.Errorf("go build %s produced no binaries", strings.Join(pkgs, " "))
	}
	sort.Strings(bins)
	for _, b := range bins {
		if err := checkStatic(b); err != nil {
			return nil, err
		}
	}
	return bins, nil
}

// checkStatic fails for a binary that needs a dynamic loader or shared
// libraries: in an image without libc it would not start, and the error a
// container runtime shows for that ("no such file or directory" for a file
// that is plainly there) sends people looking in the wrong place.
func checkStatic(file string) error {
	f, err := elf.Open(file)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return fmt.Errorf("%s is dynamically linked (it names an ELF interpreter); build it with CGO_ENABLED=0", file)
		}
	}
	libs, err := f.ImportedLibraries()
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	if len(libs) > 0 {
		return fmt.Errorf("%s needs shared libraries %v; build it with CGO_ENABLED=0", file, libs)
	}
	return nil
}
