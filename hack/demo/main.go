// Command demo is the Go side of hack/demo.sh: it applies the sample landscape
// to the local garden (without kubectl).
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/graft-dev/graft/test/framework"
)

func main() {
	if len(os.Args) != 3 || os.Args[1] != "apply" {
		fmt.Fprintln(os.Stderr, "usage: demo apply FILE   (KUBECONFIG names the garden)")
		os.Exit(2)
	}
	if err := apply(os.Args[2]); err != nil {
		fmt.Fprintf(os.Stderr, "demo: %v\n", err)
		os.Exit(1)
	}
}

func apply(path string) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", os.Getenv("KUBECONFIG"))
	if err != nil {
		return fmt.Errorf("loading KUBECONFIG: %w", err)
	}
	objs, err := framework.DecodeFile(path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := framework.Apply(ctx, cfg, objs); err != nil {
		return err
	}
	fmt.Printf("applied %d objects from %s\n", len(objs), path)
	return nil
}
