// Command localgarden starts, stops and describes the local garden: etcd and
// kube-apiserver on loopback with graft's CRDs and admission policies
// installed (controlplane.InstallCRDs), and with up --gardener Gardener's API server
// registered with kube-apiserver (controlplane.Gardener).
// hack/local-garden.sh is its front door; the tests start the same control
// plane through pkg/controlplane (test/framework).
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/graft-dev/graft/pkg/controlplane"
)

const usage = `usage: local-garden.sh up [--gardener]|down|env|status

  up      start etcd and kube-apiserver on free loopback ports, install the CRDs
          and the admission policies of charts/graft-crds
          --gardener: also run Gardener's API server, registered with
          kube-apiserver's aggregation layer, so that core.gardener.cloud is
          served beside graft's API (hack/build-gardener.sh builds
          it once)
  down    stop them (gardener-apiserver, then kube-apiserver, then etcd)
  env     print the shell line that points KUBECONFIG at the local garden
  status  say whether the local garden is running

The state lives in $GRAFT_GARDEN_DIR (default: _output/local-garden in the repository).`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	var withGardener bool
	for _, arg := range os.Args[2:] {
		switch {
		case os.Args[1] == "up" && arg == "--gardener":
			withGardener = true
		default:
			fmt.Fprintln(os.Stderr, usage)
			os.Exit(2)
		}
	}
	if err := run(os.Args[1], withGardener); err != nil {
		fmt.Fprintf(os.Stderr, "local-garden: %v\n", err)
		os.Exit(1)
	}
}

func stateDir() (string, error) {
	if dir := os.Getenv("GRAFT_GARDEN_DIR"); dir != "" {
		return filepath.Abs(dir)
	}
	root, err := controlplane.RepoRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "_output", "local-garden"), nil
}

func run(command string, withGardener bool) error {
	dir, err := stateDir()
	if err != nil {
		return err
	}
	kubeconfig := filepath.Join(dir, "kubeconfig")
	switch command {
	case "up":
		if controlplane.Running(dir) {
			if withGardener && !controlplane.GardenerRunning(gardenerDir(dir)) {
				// The aggregation layer's flags are kube-apiserver's.
				return errors.New("the local garden runs without gardener-apiserver: run hack/local-garden.sh down, then up --gardener")
			}
			fmt.Printf("local garden already running; KUBECONFIG=%s\n", kubeconfig)
			return nil
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
		defer cancel()
		// Leftovers of a garden that died: clean them before starting anew.
		_ = stopGardener(dir)
		_ = controlplane.StopDir(dir)
		opts := controlplane.ControlPlaneOptions{Dir: dir, Detach: true, Log: os.Stdout}
		var gardener *controlplane.Gardener
		if withGardener {
			if gardener, err = prepareGardener(dir, &opts); err != nil {
				return err
			}
		}
		cp, err := controlplane.StartControlPlane(ctx, opts)
		if err != nil {
			return err
		}
		if err := controlplane.InstallCRDs(ctx, cp.RESTConfig); err != nil {
			_ = controlplane.StopDir(dir)
			return err
		}
		if withGardener {
			if err := gardener.Start(ctx, cp); err != nil {
				_ = stopGardener(dir)
				_ = controlplane.StopDir(dir)
				return err
			}
		}
		fmt.Printf("local garden up; CRDs and admission policies installed; KUBECONFIG=%s\n", kubeconfig)
		return nil
	case "down":
		if err := errors.Join(stopGardener(dir), controlplane.StopDir(dir)); err != nil {
			return err
		}
		fmt.Println("local garden stopped")
		return nil
	case "env":
		if !controlplane.Running(dir) {
			return errors.New("the local garden is not running: run hack/local-garden.sh up")
		}
		fmt.Printf("export KUBECONFIG=%s\n", kubeconfig)
		return nil
	case "status":
		if controlplane.Running(dir) {
			fmt.Printf("running; KUBECONFIG=%s\n", kubeconfig)
			if controlplane.GardenerRunning(gardenerDir(dir)) {
				fmt.Printf("gardener-apiserver %s running; log in %s\n", controlplane.GardenerVersion, gardenerDir(dir))
			}
		} else {
			fmt.Println("not running")
		}
		return nil
	default:
		return fmt.Errorf("unknown command %q\n%s", command, usage)
	}
}
