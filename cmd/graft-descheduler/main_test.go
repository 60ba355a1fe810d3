package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/pkg/component"
	"github.com/graft-dev/graft/pkg/descheduler"
)

// exampleConfig is the configuration reference example; keep it in sync with
// the documentation.
const exampleConfig = `apiVersion: config.graft.dev/v1alpha1
kind: DeschedulerConfiguration
clientConnection:
  kubeconfig: /etc/graft/garden.kubeconfig
leaderElection:
  leaderElect: true
  resourceNamespace: garden
interval: 2m
dryRun: false
requireFit: true
maxEvictionsPerSeed: 5
maxEvictionsTotal: 20
evictionRate: 0.5
evictionBurst: 2
maxPendingEvicted: 10
concurrentEvictions: 4
strategy: SameRegion
plugins:
- name: NoExecuteTaints
  args:
    taintKeys: [seed.gardener.cloud/unschedulable]
- name: OverCapacity
  args:
    purposeOrder: [evaluation, testing, development]
`

func TestExampleConfigLoads(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte(exampleConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := component.LoadConfig[*configv1alpha1.DeschedulerConfiguration](path)
	if err != nil {
		t.Fatalf("loading the example: %v", err)
	}
	if cfg.Interval.Duration != 2*time.Minute || *cfg.EvictionRate != 0.5 || len(cfg.Plugins) != 2 ||
		cfg.LeaderElection.ResourceName != "graft-descheduler" || !*cfg.Plugins[1].Enabled {
		t.Errorf("example not read as written: %+v", cfg)
	}
	plugins, err := descheduler.DefaultRegistry().Build(cfg.Plugins)
	if err != nil || len(plugins) != 2 {
		t.Errorf("plugins of the example: %v %v", plugins, err)
	}
}

func TestConfigErrorsNameTheField(t *testing.T) {
	_, err := component.DecodeConfig[*configv1alpha1.DeschedulerConfiguration]([]byte(
		"apiVersion: config.graft.dev/v1alpha1\nkind: DeschedulerConfiguration\ninterval: -1s\nmaxPendingEvicted: -3\nplugins:\n- name: Nope\n"))
	for _, f := range []string{"interval", "maxPendingEvicted", "plugins[1].name"} {
		if err == nil || !strings.Contains(err.Error(), f) {
			t.Errorf("error %v, want one naming %s", err, f)
		}
	}
	cfg, err := component.DecodeConfig[*configv1alpha1.DeschedulerConfiguration]([]byte(
		"apiVersion: config.graft.dev/v1alpha1\nkind: DeschedulerConfiguration\nplugins:\n- name: OverCapacity\n  args: {purposeOrdr: []}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := descheduler.DefaultRegistry().Build(cfg.Plugins); err == nil || !strings.Contains(err.Error(), "purposeOrdr") {
		t.Errorf("error %v, want the unknown argument named", err)
	}
}

func TestCommandNeedsConfig(t *testing.T) {
	cmd := newCommand()
	cmd.SetArgs(nil)
	if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), "--config") {
		t.Errorf("err = %v", err)
	}
}
