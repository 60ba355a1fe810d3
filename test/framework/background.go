package framework

import (
	"context"
	"testing"
)

// RunUntilCleanup runs a component's Run in the background until the test
// ends: the test's cleanup cancels its context and waits for it to return,
// and an error it returns fails the test, named by name.
func RunUntilCleanup(t testing.TB, name string, run func(context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("%s: %v", name, err)
		}
	})
}
