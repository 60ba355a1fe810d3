// Command graftctl taints, cordons and drains seeds, shows seeds and shoots and
// simulates scheduling, in the habits of kubectl.
package main

import (
	"fmt"
	"os"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/graft-dev/graft/pkg/graftctl"
)

func main() {
	cmd := graftctl.NewGraftctlCommand(genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr})
	if err := cmd.Execute(); err != nil {
		fmt.Fprintf(os.Stderr, "error: %v\n", err)
		os.Exit(1)
	}
}
