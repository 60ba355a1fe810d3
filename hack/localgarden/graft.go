package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/graft-dev/graft/hack/node"
	"github.com/graft-dev/graft/test/charts"
	"github.com/graft-dev/graft/test/framework"
)

// installGraft runs graft on the node as an operator would: the graft image
// built from this tree (hack/image; $GRAFT_IMAGE_ARCHIVE when set) imported
// into the node's containerd, then the four charts installed with Helm,
// pointing at that image with pull policy Never, and their Deployments waited
// for.
func installGraft(ctx context.Context, nodeDir, kubeconfig string) error {
	archive := os.Getenv("GRAFT_IMAGE_ARCHIVE")
	if archive == "" {
		root, err := framework.RepoRoot()
		if err != nil {
			return err
		}
		archive = filepath.Join(nodeDir, "images", "graft.tar")
		build := exec.CommandContext(ctx, "go", "run", "./hack/image", "graft", "--out", archive)
		build.Dir = root
		build.Stdout, build.Stderr = os.Stdout, os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("building the graft image with hack/image (or set GRAFT_IMAGE_ARCHIVE to an OCI archive of it): %w", err)
		}
	}
	ref, err := node.ImportImage(nodeDir, archive, os.Stdout)
	if err != nil {
		return err
	}
	image, err := charts.ParseImage(ref, "Never")
	if err != nil {
		return err
	}
	fmt.Printf("installing graft-crds, %s with image %s (helm upgrade --install)\n", strings.Join(charts.ComponentCharts, ", "), ref)
	// Pods start in seconds, but a loaded two-core machine may take minutes.
	return charts.InstallGraft(ctx, charts.GraftOptions{Kubeconfig: kubeconfig, Image: image, Wait: 5 * time.Minute})
}
