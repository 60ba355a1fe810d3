// Command graftctl taints, cordons and drains seeds, shows seeds and shoots and
// simulates scheduling, in the habits of kubectl.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/graft-dev/graft/pkg/graftctl"
	"github.com/graft-dev/graft/pkg/graftctl/factory"
)

func main() {
	// Interrupting `graftctl drain --wait` cancels the wait; it never undoes
	// the taints already written.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	cmd := graftctl.NewGraftctlCommand(genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr})
	graftctl.ActAs(cmd, os.Args[0])
	err := cmd.ExecuteContext(ctx)
	stop()
	if err != nil {
		graftctl.PrintError(graftctl.EscapingWriter(os.Stderr), err)
		os.Exit(factory.ExitCode(err))
	}
}
