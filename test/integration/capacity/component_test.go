//go:build integration

package capacity

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/capacity"
	"github.com/graft-dev/graft/pkg/component"
	"github.com/graft-dev/graft/test/framework"
)

// TestRunsAsAComponent runs the annotator as the binary does: leader election
// on a Lease, /readyz and /metrics served from component-base's registry.
// It is the only test using the process-wide metrics registry.
func TestRunsAsAComponent(t *testing.T) {
	env := framework.Shared(t)
	seed := createReadySeed(t, name("component"), nil, map[string]string{v1alpha1.AnnotationReservedShoots: "5"})
	cfg := &configv1alpha1.CapacityAnnotatorConfiguration{}
	cfg.LeaderElection.LeaderElect = ptr.To(true)
	cfg.LeaderElection.ResourceName = name("graft-capacity-annotator")
	cfg.Server.HealthProbeBindAddress = "127.0.0.1:0"
	cfg.Server.MetricsBindAddress = "127.0.0.1:0"
	cfg.SyncPeriod = metav1.Duration{Duration: testSyncPeriod}
	cfg.Default()
	if errs := cfg.Validate(); len(errs) > 0 {
		t.Fatal(errs)
	}

	clients, err := component.NewClients(component.ApplyClientConnection(env.Config(), cfg.ClientConnection), capacity.Name)
	if err != nil {
		t.Fatal(err)
	}
	a, err := capacity.New(cfg, clients, capacity.Options{Identity: "test-replica"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	defer func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("annotator returned: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("annotator did not stop within 30s")
		}
	}()

	waitForStatus(t, seed.Name, "200", "195", "0")
	framework.WaitFor(t, "the Lease to be held", waitTimeout, func(ctx context.Context) (bool, error) {
		lease, err := env.KubeClient().CoordinationV1().Leases(v1alpha1.GardenNamespace).Get(ctx, cfg.LeaderElection.ResourceName, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		holder := ptr.Deref(lease.Spec.HolderIdentity, "")
		return holder == "test-replica", fmt.Errorf("holder %q", holder)
	})
	framework.WaitFor(t, "/readyz", waitTimeout, func(ctx context.Context) (bool, error) {
		if a.HealthAddr() == nil {
			return false, fmt.Errorf("not listening yet")
		}
		body, code, err := get(ctx, "http://"+a.HealthAddr().String()+"/readyz?verbose")
		return code == http.StatusOK && strings.Contains(body, "informers-synced ok"), fmt.Errorf("%d %s %v", code, body, err)
	})
	framework.WaitFor(t, "the seed's series on /metrics", waitTimeout, func(ctx context.Context) (bool, error) {
		body, code, err := get(ctx, "http://"+a.MetricsAddr().String()+"/metrics")
		if err != nil || code != http.StatusOK {
			return false, fmt.Errorf("%d %v", code, err)
		}
		for _, want := range []string{
			fmt.Sprintf(`graft_seed_capacity{resource="shoots",seed=%q} 200`, seed.Name),
			fmt.Sprintf(`graft_seed_allocatable{resource="shoots",seed=%q} 195`, seed.Name),
			fmt.Sprintf(`graft_seed_usage{resource="shoots",seed=%q} 0`, seed.Name),
			`graft_capacity_annotator_reconciles_total{result="success"}`,
			// client-go's workqueue metrics of the annotator's named queue.
			`workqueue_depth{name="graft_capacity_annotator"}`,
		} {
			if !strings.Contains(body, want) {
				return false, fmt.Errorf("/metrics lacks %s", want)
			}
		}
		return true, nil
	})
}

func get(ctx context.Context, url string) (string, int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return string(body), resp.StatusCode, err
}
