package component

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/tools/cache"
	"k8s.io/component-base/metrics/legacyregistry"
	// Register client-go's workqueue, REST client and leader election
	// (leader_election_master_status) metrics with the legacy registry.
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/clientgo/leaderelection"
	_ "k8s.io/component-base/metrics/prometheus/workqueue"
	"k8s.io/klog/v2"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
)

// HealthCheck returns nil when healthy, or an error saying what is wrong.
type HealthCheck func() error

// Server serves the probe and metrics endpoints of one component.
type Server struct {
	// Config names the bind addresses.
	Config configv1alpha1.ServerConfiguration

	mu         sync.RWMutex
	healthz    map[string]HealthCheck
	readyz     map[string]HealthCheck
	healthAddr net.Addr
	metricAddr net.Addr
}

// AddHealthCheck adds a named liveness check to /healthz.
func (s *Server) AddHealthCheck(name string, c HealthCheck) { s.addCheck(&s.healthz, name, c) }

// AddReadyCheck adds a named readiness check to /readyz.
func (s *Server) AddReadyCheck(name string, c HealthCheck) { s.addCheck(&s.readyz, name, c) }

func (s *Server) addCheck(checks *map[string]HealthCheck, name string, c HealthCheck) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if *checks == nil {
		*checks = map[string]HealthCheck{}
	}
	(*checks)[name] = c
}

// AddInformersSyncedCheck registers the readiness check "informers-synced":
// ready once every one of synced reports true.
func (s *Server) AddInformersSyncedCheck(synced ...cache.InformerSynced) {
	s.AddReadyCheck("informers-synced", func() error {
		for _, done := range synced {
			if !done() {
				return errors.New("informers have not synced yet")
			}
		}
		return nil
	})
}

// HealthAddr is the address /healthz and /readyz listen on, once Start returned (nil when disabled).
func (s *Server) HealthAddr() net.Addr {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.healthAddr
}

// MetricsAddr is the address /metrics listens on, once Start returned (nil when disabled).
func (s *Server) MetricsAddr() net.Addr {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.metricAddr
}

// Start listens on the configured addresses and serves until ctx ends. It
// returns once listening, so that a taken port is reported at startup.
func (s *Server) Start(ctx context.Context) error {
	health := http.NewServeMux()
	health.HandleFunc("/healthz", s.handler(func() map[string]HealthCheck { return s.healthz }))
	health.HandleFunc("/readyz", s.handler(func() map[string]HealthCheck { return s.readyz }))
	metrics := http.NewServeMux()
	metrics.Handle("/metrics", legacyregistry.Handler())

	healthAddr, metricsAddr := s.Config.HealthProbeBindAddress, s.Config.MetricsBindAddress
	if healthAddr == metricsAddr {
		// One listener serves all three endpoints; MetricsAddr reports it too.
		health.Handle("/metrics", legacyregistry.Handler())
		return s.serve(ctx, "health probes", healthAddr, health, &s.healthAddr, &s.metricAddr)
	}
	if err := s.serve(ctx, "health probes", healthAddr, health, &s.healthAddr); err != nil {
		return err
	}
	return s.serve(ctx, "metrics", metricsAddr, metrics, &s.metricAddr)
}

// serve listens on addr, unless it is disabled, and serves handler there until
// ctx ends. It records the address it listens on in every one of bound.
func (s *Server) serve(ctx context.Context, what, addr string, handler http.Handler, bound ...*net.Addr) error {
	if addr == configv1alpha1.DisabledBindAddress {
		return nil
	}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("listening for %s on %s: %w", what, addr, err)
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdownCtx)
	}()
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			klog.ErrorS(err, "Serving stopped", "endpoint", what, "address", ln.Addr().String())
		}
	}()
	klog.InfoS("Serving", "endpoint", what, "address", ln.Addr().String())
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, b := range bound {
		*b = ln.Addr()
	}
	return nil
}

// handler runs every check (sorted by name) and answers 200 "ok" or 500 with
// the failing checks; ?verbose lists each check, as kube components do.
func (s *Server) handler(checks func() map[string]HealthCheck) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.mu.RLock()
		named := make(map[string]HealthCheck, len(checks()))
		names := make([]string, 0, len(named))
		for n, c := range checks() {
			named[n] = c
			names = append(names, n)
		}
		s.mu.RUnlock()
		sort.Strings(names)

		var report strings.Builder
		failed := false
		for _, n := range names {
			if err := named[n](); err != nil {
				failed = true
				fmt.Fprintf(&report, "[-]%s failed: %v\n", n, err)
			} else {
				fmt.Fprintf(&report, "[+]%s ok\n", n)
			}
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		if failed {
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprint(w, report.String())
			fmt.Fprintf(w, "%s check failed\n", strings.TrimPrefix(r.URL.Path, "/"))
			return
		}
		if _, verbose := r.URL.Query()["verbose"]; verbose {
			fmt.Fprint(w, report.String())
		}
		fmt.Fprint(w, "ok")
	}
}
