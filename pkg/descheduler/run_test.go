package descheduler

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/component-base/metrics/testutil"
	"k8s.io/utils/ptr"

	"github.com/graft-dev/client-go/clientset/versioned/fake"
	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/pkg/component"
	"github.com/graft-dev/graft/pkg/coretest"
)

// TestRunServesItsMetrics runs the descheduler as its binary does, with the
// process's metrics (the only test here that does): /metrics shows its own
// metrics and client-go's workqueue metrics of its named queue.
func TestRunServesItsMetrics(t *testing.T) {
	cfg := &configv1alpha1.DeschedulerConfiguration{}
	cfg.LeaderElection.LeaderElect = ptr.To(false)
	cfg.Server.HealthProbeBindAddress = configv1alpha1.DisabledBindAddress
	cfg.Server.MetricsBindAddress = "127.0.0.1:0"
	defaultResolved(cfg)
	if errs := cfg.Validate(); len(errs) > 0 {
		t.Fatalf("invalid test configuration: %v", errs)
	}
	clients := component.Clients{Graft: fake.NewSimpleClientset(coretest.MakeSeed("a").Allocatable(-1).Obj(), cloudProfile()), Kubernetes: kubefake.NewSimpleClientset()}
	d, err := New(cfg, clients, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	defer func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run = %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("Run did not return within 30s")
		}
	}()

	want := []string{
		`workqueue_depth{name="graft_descheduler"}`,
		`workqueue_adds_total{name="graft_descheduler"}`,
		`graft_descheduler_pending_evicted 0`,
		`graft_descheduler_pass_duration_seconds_count`,
	}
	passes := func() uint64 {
		n, err := testutil.GetHistogramMetricCount(d.metrics.PassDuration.ObserverMetric)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := passes()
	var missing []string
	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		addr := d.MetricsAddr()
		if addr == nil {
			return false, nil
		}
		body, err := get(ctx, fmt.Sprintf("http://%s/metrics", addr))
		if err != nil {
			return false, nil
		}
		missing = missing[:0]
		for _, w := range want {
			if !strings.Contains(body, w) {
				missing = append(missing, w)
			}
		}
		// The first pass over seed a has run, so Run is past the sync of
		// its informers and stops without an error.
		return len(missing) == 0 && passes() > before, nil
	})
	if err != nil {
		t.Fatalf("/metrics lacks %v: %v", missing, err)
	}
}

func get(ctx context.Context, url string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("status %d", resp.StatusCode)
	}
	return string(body), err
}
