package scheduler

import (
	"fmt"
	"sync"
	"testing"
	"time"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/algorithm"
)

func TestDecideReservesCapacity(t *testing.T) {
	c := newSchedulingCache()
	c.addSeed(readySeed("a", "eu-west-1", 1))
	c.addSeed(readySeed("b", "eu-west-1", 1))
	got := map[string]bool{}
	for _, name := range []string{"s1", "s2"} {
		seed, err := c.decide(pendingShoot(name, "eu-west-1"), awsProfile(), algorithm.Config{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got[seed] = true
	}
	if !got["a"] || !got["b"] {
		t.Errorf("two shoots went to %v, want one on each seed", got)
	}
	_, err := c.decide(pendingShoot("s3", "eu-west-1"), awsProfile(), algorithm.Config{})
	if !algorithm.IsNoCapacity(err) {
		t.Errorf("third shoot: error %v, want a capacity error", err)
	}
	if _, err := c.decide(pendingShoot("s1", "eu-west-1"), awsProfile(), algorithm.Config{}); err != errAssumed {
		t.Errorf("deciding an assumed shoot again: %v, want errAssumed", err)
	}
}

func TestConcurrentDecisionsNeverExceedCapacity(t *testing.T) {
	c := newSchedulingCache()
	for i := range 5 {
		c.addSeed(readySeed(fmt.Sprintf("seed-%d", i), "eu-west-1", 10))
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	bound := 0
	for i := range 100 {
		wg.Go(func() {
			if _, err := c.decide(pendingShoot(fmt.Sprintf("s%03d", i), "eu-west-1"), awsProfile(), algorithm.Config{}); err == nil {
				mu.Lock()
				bound++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if bound != 50 {
		t.Errorf("%d shoots placed, want 50", bound)
	}
	for i := range 5 {
		if u := c.usage(fmt.Sprintf("seed-%d", i)); u != 10 {
			t.Errorf("seed-%d usage %d, want 10", i, u)
		}
	}
}

func TestAssumedBindingLifecycle(t *testing.T) {
	c := newSchedulingCache()
	c.addSeed(readySeed("a", "eu-west-1", 5))
	shoot := pendingShoot("s", "eu-west-1")
	key := algorithm.ShootKey(shoot)
	if _, err := c.decide(shoot, awsProfile(), algorithm.Config{}); err != nil {
		t.Fatal(err)
	}
	// An informer view older than the binding does not undo the reservation.
	c.upsertShoot(shoot)
	if u := c.usage("a"); u != 1 {
		t.Fatalf("usage %d after a stale view, want 1", u)
	}
	// The bound view confirms it.
	c.upsertShoot(boundTo(shoot, "a"))
	if u, n := c.usage("a"), c.numAssumed(); u != 1 || n != 0 {
		t.Fatalf("after confirmation: usage %d, assumed %d; want 1 and 0", u, n)
	}
	// Freeing: the shoot leaves the seed.
	if !c.upsertShoot(shoot) {
		t.Error("unbinding a shoot did not report freed capacity")
	}
	if c.usage("a") != 0 {
		t.Errorf("usage %d after unbinding, want 0", c.usage("a"))
	}

	// A failed bind rolls back.
	other := pendingShoot("o", "eu-west-1")
	if _, err := c.decide(other, awsProfile(), algorithm.Config{}); err != nil {
		t.Fatal(err)
	}
	c.bindFailed(algorithm.ShootKey(other), other)
	if u, n := c.usage("a"), c.numAssumed(); u != 0 || n != 0 {
		t.Errorf("after a failed bind: usage %d, assumed %d; want 0 and 0", u, n)
	}

	// A written binding the informer never confirms expires after the TTL, not before.
	if _, err := c.decide(shoot, awsProfile(), algorithm.Config{}); err != nil {
		t.Fatal(err)
	}
	t0 := time.Unix(1000, 0)
	c.bindSucceeded(key, t0)
	current := func(string) *corev1alpha1.Shoot { return shoot }
	if expired := c.expire(t0.Add(assumeTTL-time.Second), assumeTTL, current); len(expired) != 0 {
		t.Errorf("expired %v before the TTL", expired)
	}
	if expired := c.expire(t0.Add(assumeTTL), assumeTTL, current); len(expired) != 1 || expired[0] != key {
		t.Errorf("expired %v at the TTL, want [%s]", expired, key)
	}
	if c.usage("a") != 0 {
		t.Errorf("usage %d after expiry, want the informer's view (0)", c.usage("a"))
	}

	// Deleting a counted shoot frees capacity.
	c.upsertShoot(boundTo(shoot, "a"))
	if !c.removeShoot(key) || c.usage("a") != 0 {
		t.Errorf("removing a bound shoot: usage %d", c.usage("a"))
	}
}
