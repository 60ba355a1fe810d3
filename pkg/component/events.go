package component

import (
	"context"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"
)

// EventRecorder records Events for one component.
type EventRecorder struct {
	record.EventRecorderLogger
	broadcaster record.EventBroadcaster
	sink        *asyncSink
	// marker records the flush markers (see Shutdown).
	marker record.EventRecorder
	// shutdown makes Shutdown run once: a component flushes its Events
	// before it releases its lease, and again (a no-op) on its way out.
	shutdown sync.Once
}

// flushSource marks the events Shutdown sends through the pipeline to know
// that everything recorded before has reached the sink; they are never written.
const flushSource = "graft-eventrecorder-flush"

// NewEventRecorder starts a broadcaster writing Events through client with the given
// number of concurrent writers; source names the component in each Event.
func NewEventRecorder(client kubernetes.Interface, scheme *runtime.Scheme, source string, writers int) *EventRecorder {
	if writers < 1 {
		writers = 1
	}
	sink := newAsyncSink(client, writers)
	b := record.NewBroadcaster()
	b.StartRecordingToSink(sink)
	return &EventRecorder{
		EventRecorderLogger: b.NewRecorder(scheme, corev1.EventSource{Component: source}),
		broadcaster:         b,
		sink:                sink,
		marker:              b.NewRecorder(scheme, corev1.EventSource{Component: flushSource}),
	}
}

// ShutdownWithin writes every event recorded so far (for at most timeout), then stops the
// broadcaster and the writers. The broadcaster's own Shutdown drops what is
// still in its queues, so a marker event is sent through them first: the
// broadcaster delivers in order, so once the marker reaches the sink, every
// earlier event has too.
func (r *EventRecorder) ShutdownWithin(timeout time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	r.Shutdown(ctx)
}

// Shutdown is ShutdownWithin with a context of the caller's. Only the first
// call does anything.
func (r *EventRecorder) Shutdown(ctx context.Context) {
	r.shutdown.Do(func() {
		token := string(uuid.NewUUID())
		reached := r.sink.expectMarker(token)
		r.marker.Event(&corev1.ObjectReference{Kind: "Flush", Name: token, UID: types.UID(token)}, corev1.EventTypeNormal, "Flush", "flush")
		select {
		case <-reached:
		case <-ctx.Done():
		}
		r.sink.drain(ctx)
		r.broadcaster.Shutdown()
	})
}

type opKind int

const (
	opCreate opKind = iota
	opUpdate
	opPatch
)

type op struct {
	kind  opKind
	event *corev1.Event
	patch []byte
}

// asyncSink is a record.EventSink that queues writes for its workers and
// answers at once, so the broadcaster's single delivery goroutine never waits
// for the API server.
type asyncSink struct {
	client kubernetes.Interface

	mu      sync.Mutex
	cond    *sync.Cond
	queue   []op
	busy    int
	stopped bool
	markers map[string]chan struct{}
}

// expectMarker returns a channel closed when the flush marker with token arrives.
func (s *asyncSink) expectMarker(token string) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := make(chan struct{})
	if s.markers == nil {
		s.markers = map[string]chan struct{}{}
	}
	s.markers[token] = ch
	return ch
}

func newAsyncSink(client kubernetes.Interface, writers int) *asyncSink {
	s := &asyncSink{client: client}
	s.cond = sync.NewCond(&s.mu)
	for range writers {
		go s.work()
	}
	return s
}

func (s *asyncSink) enqueue(o op) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if o.event.Source.Component == flushSource {
		if ch, ok := s.markers[string(o.event.InvolvedObject.UID)]; ok {
			close(ch)
			delete(s.markers, string(o.event.InvolvedObject.UID))
		}
		return
	}
	if s.stopped {
		return
	}
	s.queue = append(s.queue, o)
	s.cond.Signal()
}

// Create queues the creation of event.
func (s *asyncSink) Create(event *corev1.Event) (*corev1.Event, error) {
	s.enqueue(op{kind: opCreate, event: event})
	return event, nil
}

// Update queues the update of event.
func (s *asyncSink) Update(event *corev1.Event) (*corev1.Event, error) {
	s.enqueue(op{kind: opUpdate, event: event})
	return event, nil
}

// Patch queues a strategic merge patch of event.
func (s *asyncSink) Patch(event *corev1.Event, data []byte) (*corev1.Event, error) {
	s.enqueue(op{kind: opPatch, event: event, patch: data})
	return event, nil
}

func (s *asyncSink) work() {
	for {
		s.mu.Lock()
		for len(s.queue) == 0 && !s.stopped {
			s.cond.Wait()
		}
		if len(s.queue) == 0 {
			s.mu.Unlock()
			return
		}
		o := s.queue[0]
		s.queue[0] = op{}
		s.queue = s.queue[1:]
		s.busy++
		s.mu.Unlock()

		s.write(o)

		s.mu.Lock()
		s.busy--
		s.cond.Broadcast()
		s.mu.Unlock()
	}
}

func (s *asyncSink) write(o op) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	events := s.client.CoreV1().Events(o.event.Namespace)
	var err error
	switch o.kind {
	case opCreate:
		_, err = events.Create(ctx, o.event, metav1.CreateOptions{})
	case opUpdate:
		_, err = events.Update(ctx, o.event, metav1.UpdateOptions{})
	case opPatch:
		_, err = events.Patch(ctx, o.event.Name, types.StrategicMergePatchType, o.patch, metav1.PatchOptions{})
		if apierrors.IsNotFound(err) {
			// The event being counted up was never written (or expired): write it whole.
			e := o.event.DeepCopy()
			e.ResourceVersion = ""
			_, err = events.Create(ctx, e, metav1.CreateOptions{})
		}
	}
	if err != nil && !apierrors.IsAlreadyExists(err) {
		klog.V(2).InfoS("Could not write event", "namespace", o.event.Namespace, "object", o.event.InvolvedObject.Name,
			"reason", o.event.Reason, "err", err)
	}
}

// drain waits until every queued write is done (or ctx ends), then stops the workers.
func (s *asyncSink) drain(ctx context.Context) {
	stop := context.AfterFunc(ctx, func() {
		s.mu.Lock()
		s.cond.Broadcast()
		s.mu.Unlock()
	})
	defer stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	for (len(s.queue) > 0 || s.busy > 0) && ctx.Err() == nil {
		s.cond.Wait()
	}
	s.stopped = true
	s.queue = nil
	s.cond.Broadcast()
}
