package writes

import (
	"net/http"
	"net/url"
	"testing"
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
