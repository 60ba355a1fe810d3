package invariant

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
)

func seedAt(name, rv string) corev1alpha1.Seed {
	return corev1alpha1.Seed{ObjectMeta: metav1.ObjectMeta{Name: name, ResourceVersion: rv}}
}

// TestFeedGap: a watch ended by an expired resourceVersion is a gap the
// Monitor is told of, closed by a new list passed on as after a gap; the
// next watch resumes from that list.
func TestFeedGap(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	lists := []*corev1alpha1.SeedList{
		{ListMeta: metav1.ListMeta{ResourceVersion: "5"}, Items: []corev1alpha1.Seed{seedAt("a", "3")}},
		{ListMeta: metav1.ListMeta{ResourceVersion: "9"}, Items: []corev1alpha1.Seed{seedAt("a", "3"), seedAt("b", "8")}},
	}
	var mu sync.Mutex
	listed := 0
	watchedFrom := make(chan string, 4)
	src := Source{
		Kind: KindSeed,
		List: func(context.Context) (runtime.Object, error) {
			mu.Lock()
			defer mu.Unlock()
			if listed >= len(lists) {
				return nil, fmt.Errorf("listed %d times, want at most %d", listed+1, len(lists))
			}
			listed++
			return lists[listed-1], nil
		},
		Watch: func(ctx context.Context, rv string) (watch.Interface, error) {
			watchedFrom <- rv
			if rv == "5" {
				// One event, then the API server can no longer resume.
				w := watch.NewFakeWithChanSize(3, false)
				b := seedAt("b", "6")
				w.Add(&b)
				w.Error(&metav1.Status{Status: metav1.StatusFailure, Code: http.StatusGone, Reason: metav1.StatusReasonExpired, Message: "too old resource version: 5 (7)"})
				w.Stop()
				return w, nil
			}
			w := watch.NewFake()
			go func() {
				<-ctx.Done()
				w.Stop()
			}()
			return w, nil
		},
	}

	type list struct {
		rv       string
		n        int
		afterGap bool
	}
	passedOn := make(chan list, 4)
	events := make(chan watch.EventType, 4)
	m := NewMonitor(MonitorOptions{})
	f := &Feed{
		Monitor: m,
		Sources: []Source{src},
		OnList: func(kind Kind, items []runtime.Object, listRV string, afterGap bool) {
			passedOn <- list{listRV, len(items), afterGap}
		},
		OnEvent: func(kind Kind, ev watch.Event) { events <- ev.Type },
	}
	if err := f.Start(ctx, ctx); err != nil {
		t.Fatal(err)
	}

	want := []list{{"5", 1, false}, {"9", 2, true}}
	for _, w := range want {
		select {
		case got := <-passedOn:
			if got != w {
				t.Fatalf("list passed on = %+v, want %+v", got, w)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("no list %+v passed on", w)
		}
	}
	select {
	case ev := <-events:
		if ev != watch.Added {
			t.Errorf("event passed on = %s, want %s", ev, watch.Added)
		}
	default:
		t.Errorf("the watch event before the gap was not passed on")
	}
	for _, rv := range []string{"5", "9"} {
		select {
		case got := <-watchedFrom:
			if got != rv {
				t.Fatalf("watched from resourceVersion %s, want %s", got, rv)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("no watch from resourceVersion %s", rv)
		}
	}
	if got := m.Gaps(); got != 1 {
		t.Errorf("Monitor.Gaps() = %d, want 1", got)
	}
	if !m.Reached(KindSeed, "9") {
		t.Errorf("the Monitor's seeds did not reach the list after the gap")
	}
}
