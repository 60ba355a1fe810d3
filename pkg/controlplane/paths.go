package controlplane

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// RepoRoot returns the root of the graft repository: $GRAFT_REPO_ROOT when set,
// otherwise the directory above this source file's package.
func RepoRoot() (string, error) {
	if root := os.Getenv("GRAFT_REPO_ROOT"); root != "" {
		return root, nil
	}
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", errors.New("cannot locate the repository: set GRAFT_REPO_ROOT")
	}
	root := filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
	if _, err := os.Stat(filepath.Join(root, "go.work")); err != nil {
		return "", fmt.Errorf("cannot locate the repository from %s: set GRAFT_REPO_ROOT", file)
	}
	return root, nil
}

// CRDDir is where hack/update-codegen.sh writes the CRD manifests that the
// graft-crds chart ships and the tests install.
func CRDDir() (string, error) {
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "charts", "graft-crds", "crds"), nil
}

// KubeAPIServerBinary returns the path of a kube-apiserver binary:
// $GRAFT_KUBE_APISERVER when set, otherwise the cached build of
// hack/build-kube-apiserver.sh (which builds it first if this machine has none).
func KubeAPIServerBinary() (string, error) {
	if bin := os.Getenv("GRAFT_KUBE_APISERVER"); bin != "" {
		return bin, nil
	}
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	cmd := exec.Command("bash", filepath.Join(root, "hack", "build-kube-apiserver.sh"))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("building kube-apiserver with hack/build-kube-apiserver.sh: %w", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return lines[len(lines)-1], nil
}

// EtcdBinary returns the path of etcd: $GRAFT_ETCD when set, otherwise etcd on
// PATH (Debian's etcd-server package).
func EtcdBinary() (string, error) {
	if bin := os.Getenv("GRAFT_ETCD"); bin != "" {
		return bin, nil
	}
	bin, err := exec.LookPath("etcd")
	if err != nil {
		return "", errors.New("etcd not found on PATH: install Debian's etcd-server package (apt-get install etcd-server)")
	}
	return bin, nil
}
