package writes

import (
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"k8s.io/client-go/rest"
)

func TestKindOf(t *testing.T) {
	for _, tc := range []struct {
		method, path string
		want         Kind
		write        bool
	}{
		{http.MethodPatch, "/apis/core.graft.dev/v1alpha1/namespaces/ns/shoots/s-1", Kind{"patch", "shoots"}, true},
		{http.MethodPut, "/apis/core.graft.dev/v1alpha1/namespaces/ns/shoots/s-1/status", Kind{"update", "shoots/status"}, true},
		{http.MethodPost, "/api/v1/namespaces/default/events", Kind{"create", "events"}, true},
		{http.MethodPatch, "/api/v1/namespaces/ns/events/s-1.abc", Kind{"patch", "events"}, true},
		{http.MethodPut, "/apis/coordination.k8s.io/v1/namespaces/garden/leases/l", Kind{"update", "leases"}, true},
		{http.MethodPut, "/apis/core.graft.dev/v1alpha1/seeds/a", Kind{"update", "seeds"}, true},
		{http.MethodPost, "/api/v1/namespaces", Kind{"create", "namespaces"}, true},
		{http.MethodDelete, "/apis/core.graft.dev/v1alpha1/namespaces/ns/shoots", Kind{"deletecollection", "shoots"}, true},
		{http.MethodGet, "/apis/core.graft.dev/v1alpha1/namespaces/ns/shoots", Kind{}, false},
	} {
		got, write := KindOf(&http.Request{Method: tc.method, URL: &url.URL{Path: tc.path}})
		if got != tc.want || write != tc.write {
			t.Errorf("%s %s: got %v, %v; want %v, %v", tc.method, tc.path, got, write, tc.want, tc.write)
		}
	}
}

func TestPlanMakesEveryWriteOnce(t *testing.T) {
	counts := Counts{{"patch", "shoots"}: 1003, {"create", "events"}: 2010, {"patch", "events"}: 7, {"update", "shoots"}: 999}
	plan, err := Plan(counts, 1000)
	if err != nil {
		t.Fatal(err)
	}
	got := Counts{}
	for _, kinds := range plan {
		rank := -1
		mine := Counts{}
		for _, k := range kinds {
			got[k]++
			mine[k]++
			r := indexOf(k)
			if r < rank {
				t.Fatalf("writes out of replay order: %v", kinds)
			}
			rank = r
		}
		for k, c := range counts {
			if lo := c / 1000; mine[k] < lo || mine[k] > lo+1 {
				t.Errorf("uneven plan: one shoot has %d writes of %s", mine[k], k)
			}
		}
	}
	if d := got.Diff(counts); d != "" {
		t.Errorf("the plan's writes differ: %s", d)
	}
}

func indexOf(k Kind) int {
	for i, o := range replayOrder {
		if o == k {
			return i
		}
	}
	return -1
}

func TestPlanRefusesWhatItCannotMake(t *testing.T) {
	if _, err := Plan(Counts{{"update", "seeds"}: 1, {"patch", "shoots"}: 1}, 1); err == nil {
		t.Fatal("a plan with seed updates, want an error")
	}
}

func TestCountsMinus(t *testing.T) {
	a := Counts{{"patch", "shoots"}: 10, {"create", "events"}: 5}
	b := Counts{{"patch", "shoots"}: 4, {"create", "events"}: 7}
	got := a.Minus(b)
	if d := got.Diff(Counts{{"patch", "shoots"}: 6}); d != "" {
		t.Errorf("Minus: %s", d)
	}
}

// TestCounterCountsRefusalsByAnswer sends writes through a counted REST
// config to a server that accepts some and refuses others, and reads the
// refusals back by status code.
func TestCounterCountsRefusalsByAnswer(t *testing.T) {
	answers := []int{http.StatusOK, http.StatusUnprocessableEntity, http.StatusConflict, http.StatusUnprocessableEntity, http.StatusCreated}
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(answers[int(n.Add(1))-1])
	}))
	defer srv.Close()
	c := NewCounter()
	client := &http.Client{Transport: c.Wrap(&rest.Config{Host: srv.URL}).WrapTransport(http.DefaultTransport)}
	for range answers {
		req, err := http.NewRequest(http.MethodPatch, srv.URL+"/apis/core.graft.dev/v1alpha1/namespaces/ns/shoots/s", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	s := c.Stats()
	if s.OK.Total() != 2 || s.Failed.Total() != 3 {
		t.Errorf("accepted %d, refused %d; want 2 and 3", s.OK.Total(), s.Failed.Total())
	}
	if want := map[int]int{409: 1, 422: 2}; !maps.Equal(s.Answers, want) {
		t.Errorf("refusals by answer %v, want %v", s.Answers, want)
	}
	if want := "(3 refused: patch shoots 3; answered 409 x1, 422 x2)"; !strings.Contains(s.String(), want) {
		t.Errorf("%q lacks %q", s.String(), want)
	}
}
