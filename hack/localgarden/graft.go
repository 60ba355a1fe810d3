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
	archive, err := imageArchive(ctx, "graft", "GRAFT_IMAGE_ARCHIVE", nodeDir)
	if err != nil {
		return err
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

// imageArchive returns the OCI archive of one of hack/image's images: the
// file $envVar names when set, otherwise one built into the node's images
// directory.
func imageArchive(ctx context.Context, image, envVar, nodeDir string) (string, error) {
	if archive := os.Getenv(envVar); archive != "" {
		return archive, nil
	}
	root, err := framework.RepoRoot()
	if err != nil {
		return "", err
	}
	archive := filepath.Join(nodeDir, "images", image+".tar")
	build := exec.CommandContext(ctx, "go", "run", "./hack/image", image, "--out", archive)
	build.Dir = root
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		return "", fmt.Errorf("building the %s image with hack/image (or set %s to an OCI archive of it): %w", image, envVar, err)
	}
	return archive, nil
}
