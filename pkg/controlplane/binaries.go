package controlplane

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// BuildBinaries builds the named commands of the repository (./cmd/NAME)
// into dir and returns dir; dir/NAME is each binary.
func BuildBinaries(ctx context.Context, dir string, names ...string) (string, error) {
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	args := []string{"build", "-o", filepath.Clean(dir) + string(os.PathSeparator)}
	for _, n := range names {
		args = append(args, "./cmd/"+n)
	}
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go %v: %w\n%s", args, err, out)
	}
	return dir, nil
}
