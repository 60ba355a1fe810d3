package framework

import (
	"context"
	"sync"
	"testing"
	"time"
)

// RunUntilCleanup runs a component's Run in the background until the test
// ends: the test's cleanup cancels its context and waits for it to return,
// and an error it returns fails the test, named by name. The stop it returns
// does the same at once; the cleanup then does nothing.
func RunUntilCleanup(t testing.TB, name string, run func(context.Context) error) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx) }()
	stop = sync.OnceFunc(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("%s: %v", name, err)
			}
		case <-time.After(30 * time.Second):
			t.Errorf("%s did not stop within 30s", name)
		}
	})
	t.Cleanup(stop)
	return stop
}
