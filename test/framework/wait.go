package framework

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// WaitFor polls cond every 100ms until it holds, and fails the test once
// timeout has passed, saying what it waited for and cond's last error (an
// error from cond only explains why not yet; polling goes on).
func WaitFor(t testing.TB, what string, timeout time.Duration, cond func(context.Context) (bool, error)) {
	t.Helper()
	var last error
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		ok, err := cond(ctx)
		last = err
		return ok, nil
	})
	if err != nil {
		t.Fatalf("waiting %s for %s: %v (last error: %v)", timeout, what, err, last)
	}
}
