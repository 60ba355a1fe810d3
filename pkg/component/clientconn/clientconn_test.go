package clientconn

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	componentbaseconfigv1alpha1 "k8s.io/component-base/config/v1alpha1"
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
