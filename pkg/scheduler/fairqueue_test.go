package scheduler

import (
	"fmt"
	"slices"
	"testing"

	"k8s.io/client-go/util/workqueue"
)

// TestFairQueue: one tenant floods the queue with its shoots; another
// tenant's shoot, queued after them, is the second to be decided, not the
// thousand-and-first. Within a namespace the order is kept, and a key added
// again keeps its place.
func TestFairQueue(t *testing.T) {
	q := newFairWorkQueue("", workqueue.NewTypedItemExponentialFailureRateLimiter[string](initialBackoff, maxBackoff))
	defer q.ShutDown()
	for i := range 1000 {
		q.Add(fmt.Sprintf("flood/s%04d", i))
	}
	q.Add("quiet/a")
	q.Add("other/b")
	q.Add("quiet/c")
	q.Add("flood/s0000") // already queued: keeps its place
	var got []string
	for range 6 {
		key, _ := q.Get()
		got = append(got, key)
		q.Done(key)
	}
	want := []string{"flood/s0000", "quiet/a", "other/b", "flood/s0001", "quiet/c", "flood/s0002"}
	if !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
	if q.Len() != 1000-3 {
		t.Errorf("%d keys left, want %d", q.Len(), 1000-3)
	}
	// Drained, the queue forgets the namespaces.
	for q.Len() > 0 {
		key, _ := q.Get()
		q.Done(key)
	}
	q.Add("late/x")
	if key, _ := q.Get(); key != "late/x" {
		t.Errorf("after draining got %s", key)
	}
}

func BenchmarkFairQueue(b *testing.B) {
	q := newFairQueue()
	for i := range 1000 {
		q.Push(fmt.Sprintf("ns%02d/s%04d", i%50, i))
	}
	b.ResetTimer()
	for range b.N {
		q.Push(q.Pop())
	}
}
