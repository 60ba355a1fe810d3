//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// graftctl runs graftctl as the garden's admin and returns its output; a
// non-zero exit is returned as an error with the output.
func graftctl(ctx context.Context, timeout time.Duration, args ...string) (stdout, stderr string, err error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bins.path("graftctl"), args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+env.Kubeconfig)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		GinkgoWriter.Printf("graftctl %v exited %d\nstdout:\n%s\nstderr:\n%s\n", args, exit.ExitCode(), out.String(), errOut.String())
	}
	return out.String(), errOut.String(), err
}

// mustGraftctl runs graftctl and fails the spec when it exits non-zero.
func mustGraftctl(ctx context.Context, args ...string) string {
	GinkgoHelper()
	out, errOut, err := graftctl(ctx, time.Minute, args...)
	Expect(err).NotTo(HaveOccurred(), "graftctl %v\nstdout:\n%s\nstderr:\n%s", args, out, errOut)
	return out
}
