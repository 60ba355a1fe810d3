package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/pkg/capacity"
	"github.com/graft-dev/graft/pkg/component"
)

// exampleConfig is the configuration reference example; keep it in sync with
// the documentation.
const exampleConfig = `apiVersion: config.graft.dev/v1alpha1
kind: CapacityAnnotatorConfiguration
clientConnection:
  kubeconfig: /etc/graft/garden.kubeconfig
leaderElection:
  leaderElect: true
  resourceNamespace: garden
server:
  healthProbeBindAddress: :10252
  metricsBindAddress: :19252
capacity:
  shoots: "200"
reserved:
  shoots: "10"
overrides:
- seedSelector:
    matchLabels:
      seed.graft.dev/size: small
  capacity:
    shoots: "50"
- seedSelector:
    matchExpressions:
    - {key: seed.graft.dev/size, operator: In, values: [large, xlarge]}
  capacity:
    shoots: "500"
  reserved:
    shoots: "25"
respectSeedCapacity: true
syncPeriod: 5s
concurrentSyncs: 5
healthTaints:
  enabled: true
  unhealthyEvictionDelay: 10m
forecast:
  enabled: true
  window: 6h
  horizon: 24h
pools:
- name: large
  seedSelector:
    matchLabels:
      seed.graft.dev/size: large
`

func TestExampleConfigLoads(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte(exampleConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := component.LoadConfig[*configv1alpha1.CapacityAnnotatorConfiguration](path)
	if err != nil {
		t.Fatalf("loading the example: %v", err)
	}
	if len(cfg.Overrides) != 2 || !cfg.RespectSeedCapacity || !cfg.HealthTaints.Enabled ||
		cfg.HealthTaints.UnhealthyEvictionDelay.Duration != 10*time.Minute || cfg.LeaderElection.ResourceName != "graft-capacity-annotator" ||
		!cfg.Forecast.Enabled || cfg.Forecast.Period.Duration != 30*time.Second || len(cfg.Pools) != 1 || cfg.Pools[0].ManagedSeedSet != nil {
		t.Errorf("example not read as written: %+v", cfg)
	}
	if _, err := capacity.NewRules(cfg, "graft-capacity-annotator"); err != nil {
		t.Errorf("rules of the example: %v", err)
	}
}

func TestConfigErrorsNameTheField(t *testing.T) {
	_, err := component.DecodeConfig[*configv1alpha1.CapacityAnnotatorConfiguration]([]byte(
		"apiVersion: config.graft.dev/v1alpha1\nkind: CapacityAnnotatorConfiguration\nsyncPeriod: -1s\ncapacity:\n  shoots: \"-5\"\n"))
	if err == nil || !strings.Contains(err.Error(), "syncPeriod") || !strings.Contains(err.Error(), "capacity[shoots]") {
		t.Errorf("error %v, want one naming syncPeriod and capacity[shoots]", err)
	}
	_, err = component.DecodeConfig[*configv1alpha1.CapacityAnnotatorConfiguration]([]byte(
		"apiVersion: config.graft.dev/v1alpha1\nkind: CapacityAnnotatorConfiguration\noverides: []\n"))
	if err == nil || !strings.Contains(err.Error(), `unknown field "overides"`) {
		t.Errorf("error %v, want the unknown field named", err)
	}
}

func TestConfigFlagRequired(t *testing.T) {
	cmd := newCommand()
	cmd.SetArgs(nil)
	if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), "--config is required") {
		t.Errorf("error %v, want --config is required", err)
	}
}
