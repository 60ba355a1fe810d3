package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readmeExample is the configuration example of docs/install.md; keep them in sync.
const readmeExample = `apiVersion: config.graft.dev/v1alpha1
kind: SchedulerConfiguration
clientConnection:
  kubeconfig: %s
  qps: 100
  burst: 200
leaderElection:
  leaderElect: true
  resourceNamespace: garden
server:
  healthProbeBindAddress: ":10251"
  metricsBindAddress: ":19251"
logging:
  verbosity: 2
  format: text
schedulerName: default-scheduler
strategy: SameRegion
concurrentSyncs: 10
scoreWeights:
  minimalDistance: 1
  leastAllocated: 1
  preferNoSchedule: 1
`

func run(t *testing.T, args ...string) error {
	t.Helper()
	cmd := newCommand()
	cmd.SetArgs(args)
	return cmd.ExecuteContext(context.Background())
}

func write(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestConfigIsRequired(t *testing.T) {
	if err := run(t); err == nil || !strings.Contains(err.Error(), "--config is required") {
		t.Errorf("no --config: %v", err)
	}
}

func TestInvalidConfigNamesEveryField(t *testing.T) {
	path := write(t, `apiVersion: config.graft.dev/v1alpha1
kind: SchedulerConfiguration
strategy: Nearest
concurrentSyncs: -3
logging:
  format: xml
`)
	err := run(t, "--config", path)
	if err == nil {
		t.Fatal("an invalid file was accepted")
	}
	for _, f := range []string{path, "strategy", "concurrentSyncs", "logging.format"} {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("error %q does not name %s", err, f)
		}
	}
}

// TestReadmeExampleLoads gets as far as the kubeconfig: the file itself is valid.
func TestReadmeExampleLoads(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "garden.kubeconfig")
	path := write(t, strings.Replace(readmeExample, "%s", missing, 1))
	err := run(t, "--config", path, "-v=0")
	if err == nil || !strings.Contains(err.Error(), "loading kubeconfig "+missing) {
		t.Errorf("docs/install.md example: %v, want it to fail only on the missing kubeconfig", err)
	}
}
