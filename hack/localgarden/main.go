// Command localgarden starts, stops and describes the local garden: etcd and
// kube-apiserver on loopback with graft's CRDs and admission policies
// installed (test/framework.InstallCRDs). hack/local-garden.sh
// is its front door; the tests start the same control plane through
// test/framework.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/graft-dev/graft/test/framework"
)

const usage = `usage: local-garden.sh up|down|env|status

  up      start etcd and kube-apiserver on free loopback ports, install the CRDs
          and the admission policies of charts/graft-crds
  down    stop them (kube-apiserver first, then etcd)
  env     print the shell line that points KUBECONFIG at the local garden
  status  say whether the local garden is running

The state lives in $GRAFT_GARDEN_DIR (default: _output/local-garden in the repository).`

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
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

func run(command string) error {
	dir, err := stateDir()
	if err != nil {
		return err
	}
	kubeconfig := filepath.Join(dir, "kubeconfig")
	switch command {
	case "up":
		if framework.Running(dir) {
			fmt.Printf("local garden already running; KUBECONFIG=%s\n", kubeconfig)
			return nil
		}
		// Leftovers of a garden that died: clean them before starting anew.
		_ = framework.StopDir(dir)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
		defer cancel()
		cp, err := framework.StartControlPlane(ctx, framework.ControlPlaneOptions{Dir: dir, Detach: true, Log: os.Stdout})
		if err != nil {
			return err
		}
		if err := framework.InstallCRDs(ctx, cp.RESTConfig); err != nil {
			_ = framework.StopDir(dir)
			return err
		}
		fmt.Printf("local garden up; CRDs and admission policies installed; KUBECONFIG=%s\n", kubeconfig)
		return nil
	case "down":
		if err := framework.StopDir(dir); err != nil {
			return err
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
		} else {
			fmt.Println("not running")
		}
		return nil
	default:
		return fmt.Errorf("unknown command %q\n%s", command, usage)
	}
}
