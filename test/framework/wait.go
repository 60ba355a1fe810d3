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

// Never fails the test if cond holds at any poll within window. It is for
// what must not happen after a step: a late goroutine can only make it pass
// when it should not, never fail when it should pass.
func Never(t testing.TB, what string, window time.Duration, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(window); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			t.Fatalf("%s within %s", what, window)
		}
	}
}
