package scheduler

import (
	"strings"

	"k8s.io/client-go/util/workqueue"
)

// fairQueue orders the shoots waiting for a worker so that namespaces take
// turns, one shoot each, as API Priority and Fairness shares an API server
// between flows: one tenant's flood of shoots (or of updates that queue
// them) waits behind its own shoots, not in front of another tenant's.
// Within a namespace the order is first in, first out. It is the work
// queue's inner queue, so the work queue's guarantees (one worker per key,
// a key re-added while processed is processed again) are unchanged; the
// work queue calls it under its own lock.
type fairQueue struct {
	// keys holds the waiting keys of each namespace, oldest first.
	keys map[string][]string
	// turns are the namespaces with waiting keys, the next to pop first.
	turns []string
	n     int
}

var _ workqueue.Queue[string] = &fairQueue{}

func newFairQueue() *fairQueue { return &fairQueue{keys: map[string][]string{}} }

// namespaceOf is the namespace part of a namespace/name key.
func namespaceOf(key string) string {
	ns, _, _ := strings.Cut(key, "/")
	return ns
}

// Touch: a key added again keeps its place.
func (q *fairQueue) Touch(string) {}

// Push appends key to its namespace's keys; a namespace that had none
// takes the last turn.
func (q *fairQueue) Push(key string) {
	ns := namespaceOf(key)
	if len(q.keys[ns]) == 0 {
		q.turns = append(q.turns, ns)
	}
	q.keys[ns] = append(q.keys[ns], key)
	q.n++
}

// Len is the number of waiting keys.
func (q *fairQueue) Len() int { return q.n }

// Pop takes the oldest key of the namespace whose turn it is; that
// namespace goes to the back of the turns if it has more.
func (q *fairQueue) Pop() string {
	ns := q.turns[0]
	q.turns = q.turns[1:]
	keys := q.keys[ns]
	key := keys[0]
	keys[0] = "" // let the string go
	if keys = keys[1:]; len(keys) == 0 {
		delete(q.keys, ns)
	} else {
		q.keys[ns] = keys
		q.turns = append(q.turns, ns)
	}
	q.n--
	return key
}

// newFairWorkQueue is the scheduler's work queue: rate limited (backoff),
// delaying (requeues after a backoff) and namespace-fair, its metrics named
// name as client-go names a queue's.
func newFairWorkQueue(name string, limiter workqueue.TypedRateLimiter[string]) workqueue.TypedRateLimitingInterface[string] {
	inner := workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[string]{Name: name, Queue: newFairQueue()})
	return workqueue.NewTypedRateLimitingQueueWithConfig(limiter, workqueue.TypedRateLimitingQueueConfig[string]{
		Name:          name,
		DelayingQueue: workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[string]{Name: name, Queue: inner}),
	})
}
