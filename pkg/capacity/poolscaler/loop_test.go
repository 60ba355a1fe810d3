package poolscaler

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/capacity/forecast"
	"github.com/graft-dev/graft/pkg/coretest"
	"github.com/graft-dev/graft/pkg/garden"
)

// Two forecasts handed over before the loop runs: the pool is reconciled
// once, on the newer one (shoots wait: one step out).
func TestLoopReconcilesEachPoolOnceOnTheNewestForecast(t *testing.T) {
	r, p, recorder, dyn := scaler(t, false)
	l := NewLoop(r, []Pool{p})
	seeds := []*v1alpha1.Seed{coretest.MakeSeed("blue-0").Allocatable(2).Label("pool", "blue").Obj()}
	pool := forecast.Pool{Kind: forecast.KindPool, Name: "blue"}
	quiet := forecast.Summary{Pool: pool, Allocatable: 2, Usage: 0, Forecast: forecast.Forecast{Free: 2, Never: true}}
	waiting := forecast.Summary{Pool: pool, Allocatable: 2, Usage: 2, Forecast: forecast.Forecast{Waiting: 1, Full: true}}
	now := time.Now()
	l.Forecast(Forecast{Now: now, Summaries: map[string]forecast.Summary{"blue": quiet}, Seeds: seeds, Usage: map[string]int{}})
	l.Forecast(Forecast{Now: now, Summaries: map[string]forecast.Summary{"blue": waiting}, Seeds: seeds, Usage: map[string]int{"blue-0": 2}})

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { l.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		set, err := dyn.Resource(garden.ManagedSeedSetResource).Namespace("garden").Get(ctx, "blue", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		n, _, _ := unstructured.NestedInt64(set.Object, "spec", "replicas")
		return n == 2, nil
	})
	if err != nil {
		t.Fatalf("the set was not scaled out on the newer forecast: %v", err)
	}
	cancel()
	<-done // the loop has stopped: nothing more is reconciled
	if got := events(recorder); len(got) != 1 || !strings.HasPrefix(got[0], "Normal ScaledOut Scale out from 1 to 2 replicas") {
		t.Errorf("events %q, want one ScaledOut", got)
	}
}
