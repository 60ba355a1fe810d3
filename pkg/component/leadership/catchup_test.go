package leadership

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
)

// pagedServer serves LISTs of things in pages as the API server does: the
// first request (no continue token) takes a snapshot at the current version;
// a continue token names the snapshot and the offset. expireOnce answers the
// first continued request with 410 Gone, as after a compaction.
type pagedServer struct {
	mu         sync.Mutex
	objects    map[string]string // name to resourceVersion
	version    int
	snapshots  map[string][]metav1.PartialObjectMetadata
	requests   []url
	expireOnce bool
}

type url struct{ limit, cont string }

func (s *pagedServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := r.URL.Query()
	s.requests = append(s.requests, url{q.Get("limit"), q.Get("continue")})
	if q.Get("resourceVersion") != "" {
		http.Error(w, "the catch-up must read from etcd", http.StatusBadRequest)
		return
	}
	limit, err := strconv.Atoi(q.Get("limit"))
	if err != nil || limit <= 0 {
		http.Error(w, "want a limit", http.StatusBadRequest)
		return
	}
	var snapshot string
	offset := 0
	if c := q.Get("continue"); c != "" {
		if s.expireOnce {
			s.expireOnce = false
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusGone)
			status := apierrors.NewResourceExpired("the continue token is too old").Status()
			status.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Status"}
			_ = json.NewEncoder(w).Encode(&status)
			return
		}
		if _, err := fmt.Sscanf(c, "%s %d", &snapshot, &offset); err != nil {
			http.Error(w, "bad continue", http.StatusBadRequest)
			return
		}
	} else {
		s.version++
		snapshot = strconv.Itoa(s.version)
		var items []metav1.PartialObjectMetadata
		for _, name := range slices.Sorted(maps.Keys(s.objects)) {
			items = append(items, metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: s.objects[name]}})
		}
		s.snapshots[snapshot] = items
	}
	items := s.snapshots[snapshot]
	end := min(offset+limit, len(items))
	list := metav1.PartialObjectMetadataList{
		TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadataList"},
		ListMeta: metav1.ListMeta{ResourceVersion: "1" + snapshot + "00"},
		Items:    items[offset:end],
	}
	if end < len(items) {
		list.Continue = fmt.Sprintf("%s %d", snapshot, end)
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(&list)
}

func newPagedLister(t *testing.T, s *pagedServer) listFunc {
	t.Helper()
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	client, err := metadata.NewForConfig(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	return metadataLister(client, 2)
}

var things = tracked{gvr: schema.GroupVersionResource{Group: "example.dev", Version: "v1", Resource: "things"}}

func never(string) bool { return false }

// TestFreshReadIsPaged checks that the catch-up's read asks for pages of
// the given size, follows the continue tokens of one snapshot, and keeps
// every object's version and the snapshot's.
func TestFreshReadIsPaged(t *testing.T) {
	s := &pagedServer{objects: map[string]string{"a": "5", "b": "6", "c": "7", "d": "8", "e": "9"}, snapshots: map[string][]metav1.PartialObjectMetadata{}}
	read, err := newPagedLister(t, s)(context.Background(), things, never)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"ns/a": "5", "ns/b": "6", "ns/c": "7", "ns/d": "8", "ns/e": "9"}
	if !maps.Equal(read.versions, want) || read.resourceVersion != "1100" {
		t.Errorf("read = %s %v, want 1100 %v", read.resourceVersion, read.versions, want)
	}
	if len(s.requests) != 3 {
		t.Fatalf("requests = %v, want 3 pages", s.requests)
	}
	for i, r := range s.requests {
		if r.limit != "2" || (i == 0) != (r.cont == "") {
			t.Errorf("request %d = %+v, want limit 2 and a continue token after the first", i, r)
		}
	}
}

// TestFreshReadStartsOverWhenExpired checks that a snapshot compacted away
// between pages (410 Gone) makes the read start over from a new snapshot
// instead of mixing two.
func TestFreshReadStartsOverWhenExpired(t *testing.T) {
	s := &pagedServer{objects: map[string]string{"a": "5", "b": "6", "c": "7"}, snapshots: map[string][]metav1.PartialObjectMetadata{}, expireOnce: true}
	read, err := newPagedLister(t, s)(context.Background(), things, never)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"ns/a": "5", "ns/b": "6", "ns/c": "7"}; !maps.Equal(read.versions, want) || read.resourceVersion != "1200" {
		t.Errorf("read = %s %v, want the second snapshot 1200 %v", read.resourceVersion, read.versions, want)
	}
	// first page, expired continue, first page again, second page.
	if len(s.requests) != 4 || s.requests[2].cont != "" {
		t.Errorf("requests = %v, want a fresh first page after the 410", s.requests)
	}
}

// TestFreshReadStopsWhenTheInformerIsPast checks that the read ends after
// its first page when the informer has synced past its version: the
// comparison object by object is not needed then.
func TestFreshReadStopsWhenTheInformerIsPast(t *testing.T) {
	s := &pagedServer{objects: map[string]string{"a": "5", "b": "6", "c": "7"}, snapshots: map[string][]metav1.PartialObjectMetadata{}}
	read, err := newPagedLister(t, s)(context.Background(), things, func(rv string) bool { return atLeast("2000", rv) })
	if err != nil {
		t.Fatal(err)
	}
	if len(s.requests) != 1 || read.resourceVersion != "1100" || read.versions != nil {
		t.Errorf("read = %s %v after %d requests, want only the first page's version", read.resourceVersion, read.versions, len(s.requests))
	}
	if !CaughtUp(read.resourceVersion, read.versions, newFakeInformer().store, "2000") {
		t.Error("an informer past the read has not caught up")
	}
}
