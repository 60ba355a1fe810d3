package capacity

import (
	"context"
	"errors"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"
	k8smetrics "k8s.io/component-base/metrics"

	"github.com/graft-dev/client-go/clientset/versioned/fake"
	graftinformers "github.com/graft-dev/client-go/informers/externalversions"
	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/pkg/coretest"
	"github.com/graft-dev/graft/pkg/garden"
)

// TestRunKeepsUsageCurrentAndRetriesFailedWrites runs the controller with
// workers on started informers: the usage follows shoots created and
// deleted through the API, and a refused status write is counted as an
// error and retried until it succeeds.
func TestRunKeepsUsageCurrentAndRetriesFailedWrites(t *testing.T) {
	cfg := &configv1alpha1.CapacityAnnotatorConfiguration{SyncPeriod: metav1.Duration{Duration: 10 * time.Millisecond}}
	cfg.Default()
	if errs := cfg.Validate(); len(errs) > 0 {
		t.Fatalf("invalid configuration: %v", errs)
	}
	client := fake.NewSimpleClientset(coretest.MakeSeed("s1").ResourceVersion("1").Obj(), coretest.MakeShoot("garden-dev", "a").Seed("s1").Obj())
	failures := 1
	client.PrependReactor("patch", "seeds", func(clienttesting.Action) (bool, runtime.Object, error) {
		if failures > 0 {
			failures--
			return true, nil, apierrors.NewInternalError(errors.New("etcd is down"))
		}
		return false, nil, nil
	})
	reg := k8smetrics.NewKubeRegistry()
	m, err := metricsFor(reg)
	if err != nil {
		t.Fatal(err)
	}
	factory := graftinformers.NewSharedInformerFactory(client, 0)
	c, err := newController(controllerOptions{
		Client:   garden.NewGraft(client),
		Seeds:    factory.Core().V1alpha1().Seeds().Informer(),
		Shoots:   factory.Core().V1alpha1().Shoots().Informer(),
		Recorder: record.NewFakeRecorder(100),
		Metrics:  m,
		Config:   cfg,
	})
	if err != nil {
		t.Fatal(err)
	}
	if c.HasSynced() {
		t.Error("HasSynced before the informers started")
	}
	ctx, cancel := context.WithCancel(context.Background())
	factory.Start(ctx.Done())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx, 2) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
		factory.Shutdown()
	})

	usage := func(want string) func(context.Context) (bool, error) {
		return func(ctx context.Context) (bool, error) {
			s, err := client.CoreV1alpha1().Seeds().Get(ctx, "s1", metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			_, _, got := shootsOf(s)
			return got == want, nil
		}
	}
	if err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 30*time.Second, true, usage("1")); err != nil {
		t.Fatalf("waiting for usage 1: %v", err)
	}
	if !c.HasSynced() {
		t.Error("HasSynced is false while the controller writes")
	}
	if got := reconciles(t, reg, resultError); got < 1 {
		t.Errorf("reconciles{result=error} = %v after a refused write, want at least 1", got)
	}

	if _, err := client.CoreV1alpha1().Shoots("garden-dev").Create(ctx, coretest.MakeShoot("garden-dev", "b").Seed("s1").Obj(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 30*time.Second, true, usage("2")); err != nil {
		t.Fatalf("waiting for usage 2 after a shoot was created: %v", err)
	}
	if err := client.CoreV1alpha1().Shoots("garden-dev").Delete(ctx, "a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 30*time.Second, true, usage("1")); err != nil {
		t.Fatalf("waiting for usage 1 after a shoot was deleted: %v", err)
	}
	if got := reconciles(t, reg, resultSuccess); got < 1 {
		t.Errorf("reconciles{result=success} = %v, want at least 1", got)
	}
}

// reconciles reads graft_capacity_annotator_reconciles_total for a result.
func reconciles(t *testing.T, reg k8smetrics.KubeRegistry, result string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range families {
		if mf.GetName() != "graft_capacity_annotator_reconciles_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "result" && l.GetValue() == result {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}
