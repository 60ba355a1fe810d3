package component

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"

	"k8s.io/utils/ptr"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
)

func common() configv1alpha1.CommonConfiguration {
	c := configv1alpha1.CommonConfiguration{}
	c.LeaderElection.LeaderElect = ptr.To(false)
	c.Server.HealthProbeBindAddress = "127.0.0.1:0"
	c.Server.MetricsBindAddress = "0"
	c.Default(configv1alpha1.CommonDefaults{LeaseName: "test"})
	return c
}

func TestRunCallsWarmUpThenLead(t *testing.T) {
	r := NewRunner("test", common(), Clients{}, RunnerOptions{})
	var order []string
	leadErr := errors.New("lead failed")
	err := r.Run(context.Background(),
		func(context.Context) error { order = append(order, "warmUp"); return nil },
		func(context.Context) error {
			order = append(order, "lead")
			if r.Server.HealthAddr() == nil {
				t.Error("the health server is not listening while leading")
			}
			return leadErr
		})
	if !errors.Is(err, leadErr) {
		t.Errorf("Run = %v, want lead's error", err)
	}
	if strings.Join(order, ",") != "warmUp,lead" {
		t.Errorf("order %v", order)
	}
}

func TestRunReportsWarmUpAndServerErrors(t *testing.T) {
	r := NewRunner("test", common(), Clients{}, RunnerOptions{})
	err := r.Run(context.Background(), func(context.Context) error { return errors.New("no informers") }, func(context.Context) error {
		t.Error("lead ran after a failed warm-up")
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "starting test: no informers") {
		t.Errorf("Run = %v", err)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c := common()
	c.Server.HealthProbeBindAddress = ln.Addr().String()
	err = NewRunner("test", c, Clients{}, RunnerOptions{}).Run(context.Background(), nil, func(context.Context) error { return nil })
	if err == nil || !strings.Contains(err.Error(), ln.Addr().String()) {
		t.Errorf("Run with a taken port = %v, want an error naming the address", err)
	}
}
