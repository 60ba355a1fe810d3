// Command localgarden starts, stops and describes the local garden: etcd and
// kube-apiserver on loopback with graft's CRDs and admission policies
// installed (test/framework.InstallCRDs), with up --node a one-node cluster
// beside them (hack/node), and with up --gardener Gardener's API server
// registered with kube-apiserver (test/framework.Gardener).
// hack/local-garden.sh is its front door; the tests start the same control
// plane through test/framework.
package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/graft-dev/graft/hack/node"
	"github.com/graft-dev/graft/test/framework"
)

const usage = `usage: local-garden.sh up [--node] [--gardener]|down|env|status

  up      start etcd and kube-apiserver on free loopback ports, install the CRDs
          and the admission policies of charts/graft-crds
          --node: also run a one-node cluster on this machine (as root):
          containerd, kube-controller-manager, kube-scheduler, kubelet and
          kube-proxy (hack/build-node.sh installs and builds them once)
          --gardener: also run Gardener's API server, registered with
          kube-apiserver's aggregation layer, so that core.gardener.cloud is
          served beside graft's API (hack/build-gardener-apiserver.sh builds
          it once)
  down    stop them (the node first and everything it left on the host,
          then gardener-apiserver, then kube-apiserver, then etcd)
  env     print the shell line that points KUBECONFIG at the local garden
  status  say whether the local garden is running

The state lives in $GRAFT_GARDEN_DIR (default: _output/local-garden in the repository).`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	var withNode, withGardener bool
	for _, arg := range os.Args[2:] {
		switch {
		case os.Args[1] == "up" && arg == "--node":
			withNode = true
		case os.Args[1] == "up" && arg == "--gardener":
			withGardener = true
		default:
			fmt.Fprintln(os.Stderr, usage)
			os.Exit(2)
		}
	}
	if err := run(os.Args[1], withNode, withGardener); err != nil {
		fmt.Fprintf(os.Stderr, "local-garden: %v\n", err)
		os.Exit(1)
	}
}

func stateDir() (string, error) {
	if dir := os.Getenv("GRAFT_GARDEN_DIR"); dir != "" {
		return filepath.Abs(dir)
	}
	root, err := framework.RepoRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "_output", "local-garden"), nil
}

func run(command string, withNode, withGardener bool) error {
	dir, err := stateDir()
	if err != nil {
		return err
	}
	kubeconfig := filepath.Join(dir, "kubeconfig")
	nodeDir := filepath.Join(dir, "node")
	switch command {
	case "up":
		if framework.Running(dir) {
			if withNode && !node.Running(nodeDir) {
				// The node's client CA is a kube-apiserver flag.
				return errors.New("the local garden runs without a node: run hack/local-garden.sh down, then up --node")
			}
			if withGardener && !framework.GardenerRunning(gardenerDir(dir)) {
				// The aggregation layer's flags are kube-apiserver's.
				return errors.New("the local garden runs without gardener-apiserver: run hack/local-garden.sh down, then up --gardener")
			}
			fmt.Printf("local garden already running; KUBECONFIG=%s\n", kubeconfig)
			return nil
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
		defer cancel()
		// Leftovers of a garden that died: clean them before starting anew.
		if err := node.Down(ctx, nodeDir, nil, os.Stdout); err != nil {
			return fmt.Errorf("cleaning up the node a previous garden left: %w", err)
		}
		_ = stopGardener(dir)
		_ = framework.StopDir(dir)
		opts := framework.ControlPlaneOptions{Dir: dir, Detach: true, Log: os.Stdout}
		var nodeConfig node.Config
		if withNode {
			if nodeConfig, err = prepareNode(ctx, nodeDir); err != nil {
				return err
			}
			if opts.ExtraAPIServerArgs, err = node.Prepare(nodeDir); err != nil {
				return err
			}
		}
		var gardener *framework.Gardener
		if withGardener {
			if gardener, err = prepareGardener(dir, &opts); err != nil {
				return err
			}
		}
		cp, err := framework.StartControlPlane(ctx, opts)
		if err != nil {
			return err
		}
		if err := framework.InstallCRDs(ctx, cp.RESTConfig); err != nil {
			_ = framework.StopDir(dir)
			return err
		}
		if withGardener {
			if err := gardener.Start(ctx, cp); err != nil {
				_ = stopGardener(dir)
				_ = framework.StopDir(dir)
				return err
			}
		}
		if withNode {
			nodeConfig.Admin = cp.RESTConfig
			nodeConfig.ServerCA = cp.RESTConfig.CAData
			nodeConfig.ServiceAccountKey = filepath.Join(dir, "certs", "sa.key")
			if err := node.Up(ctx, nodeConfig); err != nil {
				fmt.Fprintf(os.Stderr, "local-garden: %v\n", err)
				_ = node.Down(ctx, nodeDir, cp.RESTConfig, os.Stdout)
				_ = stopGardener(dir)
				_ = framework.StopDir(dir)
				return errors.New("the node did not come up; its logs are in " + nodeDir)
			}
			if err := installGraft(ctx, nodeDir, kubeconfig); err != nil {
				// The garden and the node stay up: the charts' Events and the
				// pods' logs say what went wrong.
				return fmt.Errorf("the node is up, but graft is not running on it: %w", err)
			}
			fmt.Printf("local garden up with node %s running graft's pods (namespace %s); KUBECONFIG=%s\n", node.Name, framework.ComponentNamespace, kubeconfig)
			return nil
		}
		fmt.Printf("local garden up; CRDs and admission policies installed; KUBECONFIG=%s\n", kubeconfig)
		return nil
	case "down":
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		// The node first, while kube-apiserver can still tell kubelet to stop
		// its pods.
		var admin *rest.Config
		if framework.Running(dir) {
			admin, _ = clientcmd.BuildConfigFromFlags("", kubeconfig)
		}
		nodeErr := node.Down(ctx, nodeDir, admin, os.Stdout)
		if err := errors.Join(stopGardener(dir), framework.StopDir(dir)); err != nil {
			return errors.Join(nodeErr, err)
		}
		if nodeErr != nil {
			return nodeErr
		}
		fmt.Println("local garden stopped")
		return nil
	case "env":
		if !framework.Running(dir) {
			return errors.New("the local garden is not running: run hack/local-garden.sh up")
		}
		fmt.Printf("export KUBECONFIG=%s\n", kubeconfig)
		return nil
	case "status":
		if framework.Running(dir) {
			fmt.Printf("running; KUBECONFIG=%s\n", kubeconfig)
			if node.Running(nodeDir) {
				fmt.Printf("node %s running; logs in %s\n", node.Name, nodeDir)
			}
			if framework.GardenerRunning(gardenerDir(dir)) {
				fmt.Printf("gardener-apiserver %s running; log in %s\n", framework.GardenerVersion, gardenerDir(dir))
			}
		} else {
			fmt.Println("not running")
		}
		return nil
	default:
		return fmt.Errorf("unknown command %q\n%s", command, usage)
	}
}

// prepareNode installs and builds what the node runs (hack/build-node.sh) and
// the sandbox image archive: $GRAFT_PAUSE_ARCHIVE when set, otherwise built
// by hack/image.
func prepareNode(ctx context.Context, nodeDir string) (node.Config, error) {
	if os.Geteuid() != 0 {
		return node.Config{}, errors.New("--node runs containers, which needs root")
	}
	root, err := framework.RepoRoot()
	if err != nil {
		return node.Config{}, err
	}
	cmd := exec.CommandContext(ctx, "bash", filepath.Join(root, "hack", "build-node.sh"))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return node.Config{}, fmt.Errorf("hack/build-node.sh: %w", err)
	}
	bins, err := node.ParseBinaries(bytes.NewReader(out))
	if err != nil {
		return node.Config{}, err
	}
	archive, err := imageArchive(ctx, "pause", "GRAFT_PAUSE_ARCHIVE", nodeDir)
	if err != nil {
		return node.Config{}, err
	}
	return node.Config{Dir: nodeDir, Binaries: bins, SandboxArchive: archive, Log: os.Stdout}, nil
}
