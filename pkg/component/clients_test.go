package component

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	componentbaseconfigv1alpha1 "k8s.io/component-base/config/v1alpha1"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

const kubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "https://127.0.0.1:6443"}
users:
- name: u
  user: {token: abc}
contexts:
- name: x
  context: {cluster: c, user: u}
current-context: x
`

func TestRESTConfigFromKubeconfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, []byte(kubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := RESTConfig(componentbaseconfigv1alpha1.ClientConnectionConfiguration{
		Kubeconfig: path, QPS: 123, Burst: 456, ContentType: "application/json",
	})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Host != "https://127.0.0.1:6443" || cfg.QPS != 123 || cfg.Burst != 456 || cfg.ContentType != "application/json" || cfg.BearerToken != "abc" {
		t.Errorf("REST config %+v", cfg)
	}
	clients, err := NewClients(cfg, "graft-test")
	if err != nil || clients.Graft == nil || clients.Kubernetes == nil {
		t.Errorf("NewClients: %v", err)
	}
}

func TestRESTConfigErrors(t *testing.T) {
	_, err := RESTConfig(componentbaseconfigv1alpha1.ClientConnectionConfiguration{Kubeconfig: "/does/not/exist"})
	if err == nil || !strings.Contains(err.Error(), "/does/not/exist") {
		t.Errorf("missing kubeconfig: %v", err)
	}
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	if _, err := RESTConfig(componentbaseconfigv1alpha1.ClientConnectionConfiguration{}); err == nil || !strings.Contains(err.Error(), "not running in a cluster") {
		t.Errorf("no kubeconfig outside a cluster: %v", err)
	}
}

// TestContentTypes checks which content types the clients send: the
// configured one (protobuf by default) for built-in kinds, and always JSON
// for graft's custom resources, which the API server cannot decode from
// protobuf.
func TestContentTypes(t *testing.T) {
	type seen struct{ contentType, accept string }
	var mu sync.Mutex
	requests := map[string]seen{}
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requests[r.URL.Path] = seen{r.Header.Get("Content-Type"), r.Header.Get("Accept")}
		mu.Unlock()
		http.Error(w, "recorded", http.StatusServiceUnavailable)
	}))
	defer server.Close()

	for _, tc := range []struct {
		configured, wantKube, wantKubeAccept string
	}{
		{"application/vnd.kubernetes.protobuf", "application/vnd.kubernetes.protobuf", "application/vnd.kubernetes.protobuf,application/json"},
		{"application/json", "application/json", ""},
		{"", "application/vnd.kubernetes.protobuf", "application/vnd.kubernetes.protobuf,application/json"},
	} {
		t.Run("contentType="+tc.configured, func(t *testing.T) {
			mu.Lock()
			clear(requests)
			mu.Unlock()
			cfg := ApplyClientConnection(&rest.Config{Host: server.URL}, componentbaseconfigv1alpha1.ClientConnectionConfiguration{ContentType: tc.configured, QPS: -1})
			clients, err := NewClients(cfg, "graft-test")
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			_, _ = clients.Graft.CoreV1alpha1().Seeds().Create(ctx, &v1alpha1.Seed{ObjectMeta: metav1.ObjectMeta{Name: "s"}}, metav1.CreateOptions{})
			_, _ = clients.Kubernetes.CoreV1().ConfigMaps("garden").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}}, metav1.CreateOptions{})
			_, _ = clients.Lease.CoordinationV1().Leases("garden").Create(ctx, &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "l"}}, metav1.CreateOptions{})

			mu.Lock()
			defer mu.Unlock()
			want := map[string]seen{
				"/apis/core.graft.dev/v1alpha1/seeds":                   {"application/json", "application/json"},
				"/api/v1/namespaces/garden/configmaps":                  {tc.wantKube, tc.wantKubeAccept},
				"/apis/coordination.k8s.io/v1/namespaces/garden/leases": {tc.wantKube, tc.wantKubeAccept},
			}
			for path, w := range want {
				got, ok := requests[path]
				if !ok {
					t.Errorf("no request for %s; requests %v", path, requests)
					continue
				}
				if got.contentType != w.contentType || (w.accept != "" && got.accept != w.accept) {
					t.Errorf("%s: Content-Type %q, Accept %q; want %q, %q", path, got.contentType, got.accept, w.contentType, w.accept)
				}
			}
		})
	}
}
