package component

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
)

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func TestServerChecksAndMetrics(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := &Server{Config: configv1alpha1.ServerConfiguration{HealthProbeBindAddress: "127.0.0.1:0", MetricsBindAddress: "localhost:0"}}
	ready := errors.New("informers not synced")
	s.AddHealthCheck("ping", func() error { return nil })
	s.AddReadyCheck("informers", func() error { return ready })
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	base := "http://" + s.HealthAddr().String()
	if code, body := get(t, base+"/healthz"); code != 200 || body != "ok" {
		t.Errorf("/healthz = %d %q", code, body)
	}
	if code, body := get(t, base+"/readyz"); code != 500 || !strings.Contains(body, "[-]informers failed: informers not synced") {
		t.Errorf("/readyz = %d %q", code, body)
	}
	ready = nil
	if code, body := get(t, base+"/readyz?verbose"); code != 200 || !strings.Contains(body, "[+]informers ok") {
		t.Errorf("/readyz?verbose = %d %q", code, body)
	}
	if code, body := get(t, "http://"+s.MetricsAddr().String()+"/metrics"); code != 200 || !strings.Contains(body, "# TYPE") {
		t.Errorf("/metrics = %d %q", code, body)
	}
	if s.MetricsAddr().String() == s.HealthAddr().String() {
		t.Error("separate addresses share a listener")
	}
}

func TestServerSharedAndDisabled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	shared := &Server{Config: configv1alpha1.ServerConfiguration{HealthProbeBindAddress: "127.0.0.1:0", MetricsBindAddress: "127.0.0.1:0"}}
	// Equal configured addresses share one listener.
	shared.Config.MetricsBindAddress = shared.Config.HealthProbeBindAddress
	if err := shared.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if code, _ := get(t, "http://"+shared.HealthAddr().String()+"/metrics"); code != 200 {
		t.Errorf("/metrics on the shared listener = %d", code)
	}
	off := &Server{Config: configv1alpha1.ServerConfiguration{HealthProbeBindAddress: "0", MetricsBindAddress: "0"}}
	if err := off.Start(ctx); err != nil || off.HealthAddr() != nil || off.MetricsAddr() != nil {
		t.Errorf("disabled server: err %v, addresses %v %v", err, off.HealthAddr(), off.MetricsAddr())
	}
}

func TestInformersSyncedCheck(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := &Server{Config: configv1alpha1.ServerConfiguration{HealthProbeBindAddress: "127.0.0.1:0", MetricsBindAddress: "0"}}
	seeds, shoots := true, false
	s.AddInformersSyncedCheck(func() bool { return seeds }, func() bool { return shoots })
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	base := "http://" + s.HealthAddr().String()
	if code, body := get(t, base+"/readyz"); code != 500 || !strings.Contains(body, "[-]informers-synced failed: informers have not synced yet") {
		t.Errorf("/readyz with one informer behind = %d %q", code, body)
	}
	shoots = true
	if code, body := get(t, base+"/readyz?verbose"); code != 200 || !strings.Contains(body, "[+]informers-synced ok") {
		t.Errorf("/readyz with all informers synced = %d %q", code, body)
	}
}
