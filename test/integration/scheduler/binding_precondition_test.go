//go:build integration

package scheduler

import (
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/scheduler"
)

// beforeBinding is a transport that, on the first binding PATCH of a shoot
// with a hook, runs the hook (a write by someone else) and only then sends
// the binding, so that the shoot changes between the scheduler's read and
// its write, every time. It records the status code of every binding PATCH.
type beforeBinding struct {
	next  http.RoundTripper
	ns    string
	mu    *sync.Mutex
	hooks map[string]func()
	codes map[string][]int
}

func (b beforeBinding) RoundTrip(req *http.Request) (*http.Response, error) {
	prefix := "/apis/" + v1alpha1.GroupName + "/v1alpha1/namespaces/" + b.ns + "/shoots/"
	name, ok := strings.CutPrefix(req.URL.Path, prefix)
	if req.Method != http.MethodPatch || !ok || strings.Contains(name, "/") {
		return b.next.RoundTrip(req)
	}
	b.mu.Lock()
	hook := b.hooks[name]
	delete(b.hooks, name)
	b.mu.Unlock()
	if hook != nil {
		hook()
	}
	resp, err := b.next.RoundTrip(req)
	if err == nil {
		b.mu.Lock()
		b.codes[name] = append(b.codes[name], resp.StatusCode)
		b.mu.Unlock()
	}
	return resp, err
}

// TestBindingIsPreconditionedOnWhatTheDecisionRead: a write to a status field
// the decision does not read (lastOperation, as graft-descheduler writes
// right after an eviction, also to a shoot that had no status yet) between
// the scheduler's read and its binding does not refuse the binding; a change
// to anything the decision reads does, and the shoot is bound on a later
// attempt from the new version.
func TestBindingIsPreconditionedOnWhatTheDecisionRead(t *testing.T) {
	f := newFixture(t)
	ensureNamespace(t, "garden")
	f.createSeed("a", "eu-west-1", nil, nil)
	shoots := f.graft.CoreV1alpha1().Shoots(f.ns)
	statusPatch := func(name, patch string) func() {
		return func() {
			if _, err := shoots.Patch(f.ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}, "status"); err != nil {
				t.Errorf("changing %s before its binding: %v", name, err)
			}
		}
	}
	cases := []struct {
		name        string
		noStatus    bool
		change      func(name string) func()
		wantRefusal bool
	}{
		{"evicted-status-written", true, func(name string) func() {
			return statusPatch(name, `{"status":{"lastOperation":{"type":"Migrate","state":"Pending","description":"Evicted from seed gone, waiting for a new seed: test","lastUpdateTime":"2026-01-01T00:00:00Z"}}}`)
		}, false},
		{"evicted-status-not-yet-written", true, func(string) func() { return func() {} }, false},
		{"last-operation", false, func(name string) func() {
			return statusPatch(name, `{"status":{"lastOperation":{"type":"Migrate","state":"Pending","description":"Evicted from seed gone, waiting for a new seed: test","lastUpdateTime":"2026-01-01T00:00:00Z"}}}`)
		}, false},
		{"status-seed", false, func(name string) func() {
			return statusPatch(name, `{"status":{"seedName":"elsewhere"}}`)
		}, true},
		{"labels", false, func(name string) func() {
			return func() {
				if _, err := shoots.Patch(f.ctx, name, types.MergePatchType, []byte(`{"metadata":{"labels":{"moved":"yes"}}}`), metav1.PatchOptions{}); err != nil {
					t.Errorf("labelling %s before its binding: %v", name, err)
				}
			}
		}, true},
		{"annotations", false, func(name string) func() {
			return func() {
				patch := `{"metadata":{"annotations":{"test.graft.dev/note":"changed"}}}`
				if _, err := shoots.Patch(f.ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
					t.Errorf("annotating %s before its binding: %v", name, err)
				}
			}
		}, true},
	}

	// Evicted shoots: no spec.seedName, the old seed in status, and a
	// lastOperation; created before the scheduler starts, so that each is
	// decided from exactly this version.
	transport := beforeBinding{ns: f.ns, mu: &sync.Mutex{}, hooks: map[string]func(){}, codes: map[string][]int{}}
	for _, c := range cases {
		shoot := f.newShoot(c.name, "eu-west-1")
		if c.noStatus {
			// As graft-descheduler leaves a shoot that never had a status:
			// unbound and annotated, its lastOperation not yet written.
			shoot.Annotations = map[string]string{v1alpha1.AnnotationDescheduledFrom: "gone"}
			f.createShoot(shoot)
			transport.hooks[c.name] = c.change(c.name)
			continue
		}
		shoot = f.createShoot(shoot)
		shoot.Status.SeedName = ptr.To("gone")
		shoot.Status.LastOperation = &v1alpha1.LastOperation{
			Type: v1alpha1.LastOperationTypeReconcile, State: v1alpha1.LastOperationStateSucceeded,
			Description: "reconciled on gone", LastUpdateTime: metav1.Now(),
		}
		if _, err := shoots.UpdateStatus(f.ctx, shoot, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		transport.hooks[c.name] = c.change(c.name)
	}
	startSchedulerWith(t, "sched-preconditions", func(c *rest.Config) {
		c.Wrap(func(rt http.RoundTripper) http.RoundTripper { transport.next = rt; return transport })
	}, nil, scheduler.Options{})

	for _, c := range cases {
		f.waitForSeed(c.name, time.Minute)
		transport.mu.Lock()
		codes := transport.codes[c.name]
		transport.mu.Unlock()
		if len(codes) == 0 {
			t.Errorf("%s: bound without a binding PATCH through the scheduler's transport", c.name)
			continue
		}
		t.Logf("%s: binding PATCH status codes %v", c.name, codes)
		// A refused binding ends in a conflict, and the shoot is decided
		// again from the new version; a binding that is not refused is
		// applied by the attempts of one decision, with no conflict.
		refused := slices.Contains(codes, http.StatusConflict)
		if refused != c.wantRefusal {
			t.Errorf("%s: binding answers %v, want refused=%v", c.name, codes, c.wantRefusal)
		}
		if last := codes[len(codes)-1]; last != http.StatusOK {
			t.Errorf("%s: the last binding answered %d, want 200 (every answer: %v)", c.name, last, codes)
		}
	}
	// Bound shoots still say what they were before: the binding touched
	// spec.seedName only, and the scheduler cleared a Pending lastOperation.
	got := f.getShoot("last-operation")
	if got.Status.LastOperation != nil {
		t.Errorf("last-operation: lastOperation %+v after binding, want it cleared", got.Status.LastOperation)
	}
	if got := f.getShoot("status-seed"); ptr.Deref(got.Status.SeedName, "") != "elsewhere" {
		t.Errorf("status-seed: status.seedName %q, want elsewhere", ptr.Deref(got.Status.SeedName, ""))
	}
}
