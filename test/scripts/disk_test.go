package scripts

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// root is the checkout, two directories up from this package.
func root(t *testing.T) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot locate the test's source file")
	}
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// disk runs hack/disk.sh with args against cacheDir as graft's cache; it
// returns the combined output and the exit code.
func disk(t *testing.T, cacheDir string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command("bash", append([]string{filepath.Join(root(t), "hack", "disk.sh")}, args...)...)
	cmd.Env = append(os.Environ(), "GRAFT_CACHE_DIR="+cacheDir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		if exit, ok := err.(*exec.ExitError); ok {
			return string(out), exit.ExitCode()
		}
		t.Fatalf("hack/disk.sh %s: %v", strings.Join(args, " "), err)
	}
	return string(out), 0
}

func mkfile(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, make([]byte, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func TestPruneRespectsARunningBuild(t *testing.T) {
	cache := t.TempDir()
	mkfile(t, filepath.Join(cache, "go-build", "00", "obj"))
	mkfile(t, filepath.Join(cache, "kind", "build.abc123", "rootfs"))
	mkfile(t, filepath.Join(cache, "kube-apiserver-v1.37.1"))

	// A build as hack/build-*.sh start one: hack/cache.sh's use_build_cache,
	// which holds the build cache's lock until the build ends.
	build := exec.Command("bash", "-c", `source "$1/hack/cache.sh"; use_build_cache; echo "GOCACHE=${GOCACHE}"; cat >/dev/null`, "build", root(t))
	build.Env = append(os.Environ(), "CACHE_DIR="+cache)
	stdin, err := build.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := build.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := build.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = build.Process.Kill(); _ = build.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("the build did not start: %v", err)
	}
	if want := "GOCACHE=" + filepath.Join(cache, "go-build") + "\n"; line != want {
		t.Fatalf("use_build_cache set %q, want %q", line, want)
	}

	out, code := disk(t, cache, "prune")
	if code != 0 {
		t.Fatalf("prune while a build runs: exit %d\n%s", code, out)
	}
	if !exists(filepath.Join(cache, "go-build", "00", "obj")) || !strings.Contains(out, "a build is using") {
		t.Fatalf("prune removed the build cache of a running build or did not say why it left it:\n%s", out)
	}
	if exists(filepath.Join(cache, "kind", "build.abc123")) {
		t.Fatalf("prune left the work directory of a killed node image build:\n%s", out)
	}

	// The build ends; its cache is of no use any more.
	_ = stdin.Close()
	if err := build.Wait(); err != nil {
		t.Fatalf("the build: %v", err)
	}
	out, code = disk(t, cache, "prune")
	if code != 0 || exists(filepath.Join(cache, "go-build")) {
		t.Fatalf("prune after the build: exit %d, build cache still there: %v\n%s", code, exists(filepath.Join(cache, "go-build")), out)
	}
	if !exists(filepath.Join(cache, "kube-apiserver-v1.37.1")) {
		t.Fatal("prune removed a cached binary")
	}
}

func TestNeedSaysWhatIsMissing(t *testing.T) {
	cache := t.TempDir()
	if out, code := disk(t, cache, "need", "1"); code != 0 {
		t.Fatalf("need 1 MiB: exit %d\n%s", code, out)
	}
	// More than any disk here has: it fails, naming the shortfall, and
	// reports where the space is.
	out, code := disk(t, cache, "need", "999999999")
	if code != 1 {
		t.Fatalf("need 999999999 MiB: exit %d, want 1\n%s", code, out)
	}
	for _, want := range []string{"graft's run needs about 999999999 MiB there", "MiB more", "MiB free on", "graft-cache"} {
		if !strings.Contains(out, want) {
			t.Errorf("need's output lacks %q:\n%s", want, out)
		}
	}
	if out, code := disk(t, cache, "need", "lots"); code != 2 || !strings.Contains(out, "usage") {
		t.Errorf("need lots: exit %d, want 2 with usage\n%s", code, out)
	}
}
