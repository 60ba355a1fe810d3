package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	// Buffered: signal.Notify drops what it cannot deliver at once, and a
	// dropped SIGTERM would leave the sandbox running until SIGKILL.
	sigs := make(chan os.Signal, 16)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGCHLD)
	waitForStop(sigs, reapChildren)
	os.Exit(0)
}

// waitForStop returns the first SIGTERM or SIGINT from sigs, calling reap
// for each SIGCHLD until then.
func waitForStop(sigs <-chan os.Signal, reap func() int) os.Signal {
	for sig := range sigs {
		if sig == syscall.SIGCHLD {
			reap()
			continue
		}
		return sig
	}
	return nil
}

// reapChildren waits for every child that has exited and returns how many
// it collected. The kernel merges SIGCHLDs that arrive together, so one
// signal may stand for several children: it loops until none is left.
func reapChildren() int {
	n := 0
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || pid <= 0 {
			// ECHILD: no children at all; 0: some still running.
			return n
		}
		n++
	}
}
