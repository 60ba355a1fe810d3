package component

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	logsapi "k8s.io/component-base/logs/api/v1"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
)

func TestDecodeDefaults(t *testing.T) {
	cfg, err := DecodeConfig[*configv1alpha1.SchedulerConfiguration]([]byte(`
apiVersion: config.graft.dev/v1alpha1
kind: SchedulerConfiguration
`))
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	if cfg.SchedulerName != "default-scheduler" || cfg.Strategy != configv1alpha1.StrategySameRegion || cfg.ConcurrentSyncs != 10 ||
		cfg.UnschedulableRetryInterval.Duration != 5*time.Minute {
		t.Errorf("scheduler defaults: got name %q strategy %q syncs %d retry %v", cfg.SchedulerName, cfg.Strategy, cfg.ConcurrentSyncs, cfg.UnschedulableRetryInterval)
	}
	le := cfg.LeaderElection
	if !*le.LeaderElect || le.LeaseDuration.Duration != 15*time.Second || le.RenewDeadline.Duration != 10*time.Second ||
		le.RetryPeriod.Duration != 2*time.Second || le.ResourceLock != "leases" || le.ResourceName != "graft-scheduler" || le.ResourceNamespace != "garden" {
		t.Errorf("leader election defaults: %+v", le)
	}
	if cfg.Logging.Format != logsapi.DefaultLogFormat || cfg.Server.HealthProbeBindAddress == "" || cfg.ClientConnection.QPS == 0 {
		t.Errorf("common defaults: %+v", cfg.CommonConfiguration)
	}
}

func TestDecodeKeepsSetValues(t *testing.T) {
	cfg, err := DecodeConfig[*configv1alpha1.SchedulerConfiguration]([]byte(`
apiVersion: config.graft.dev/v1alpha1
kind: SchedulerConfiguration
clientConnection:
  kubeconfig: /tmp/kubeconfig
  qps: 300
  burst: 400
leaderElection:
  leaderElect: false
  resourceNamespace: kube-system
server:
  healthProbeBindAddress: 127.0.0.1:0
  metricsBindAddress: "0"
logging:
  verbosity: 4
  format: json
schedulerName: special
strategy: MinimalDistance
scoreWeights:
  leastAllocated: 3
concurrentSyncs: 32
`))
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	if cfg.ClientConnection.Kubeconfig != "/tmp/kubeconfig" || cfg.ClientConnection.QPS != 300 || cfg.ClientConnection.Burst != 400 ||
		*cfg.LeaderElection.LeaderElect || cfg.LeaderElection.ResourceNamespace != "kube-system" ||
		cfg.Server.MetricsBindAddress != "0" || cfg.Logging.Verbosity != 4 || cfg.Logging.Format != "json" ||
		cfg.SchedulerName != "special" || cfg.Strategy != "MinimalDistance" || *cfg.ScoreWeights.LeastAllocated != 3 || cfg.ConcurrentSyncs != 32 {
		t.Errorf("values not kept: %+v", cfg)
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		data string
		want []string
	}{
		{
			name: "unknown field",
			data: "apiVersion: config.graft.dev/v1alpha1\nkind: SchedulerConfiguration\nschedulerNmae: x\n",
			want: []string{`unknown field "schedulerNmae"`},
		},
		{
			name: "unknown nested field",
			data: "apiVersion: config.graft.dev/v1alpha1\nkind: SchedulerConfiguration\nleaderElection:\n  leaseDurations: 1s\n",
			want: []string{`unknown field "leaderElection.leaseDurations"`},
		},
		{
			name: "unknown kind",
			data: "apiVersion: config.graft.dev/v1alpha1\nkind: NoSuchConfiguration\n",
			want: []string{"NoSuchConfiguration"},
		},
		{
			name: "wrong version",
			data: "apiVersion: config.graft.dev/v1beta1\nkind: SchedulerConfiguration\n",
			want: []string{"config.graft.dev/v1beta1"},
		},
		{
			name: "every invalid field at once",
			data: `apiVersion: config.graft.dev/v1alpha1
kind: SchedulerConfiguration
strategy: Nearest
concurrentSyncs: -1
unschedulableRetryInterval: 1s
schedulerName: Not_A_Name
scoreWeights:
  minimalDistance: 101
clientConnection:
  burst: -2
leaderElection:
  leaseDuration: 5s
  renewDeadline: 10s
  resourceLock: endpoints
server:
  healthProbeBindAddress: nonsense
logging:
  format: xml
`,
			want: []string{
				"strategy: Unsupported value: \"Nearest\"",
				"concurrentSyncs: Invalid value: -1",
				"unschedulableRetryInterval: Invalid value: \"1s\": must be at least 10s",
				"schedulerName: Invalid value: \"Not_A_Name\"",
				"scoreWeights.minimalDistance: Invalid value: 101",
				"clientConnection.burst",
				// component-base's wording, which reports renewDeadline's
				// value on the leaseDuration path.
				"leaderElection.leaseDuration: Invalid value: \"10s\": must be greater than `RenewDeadline`",
				"leaderElection.resourceLock: Unsupported value: \"endpoints\"",
				"server.healthProbeBindAddress: Invalid value: \"nonsense\"",
				"logging.format: Invalid value: \"xml\"",
			},
		},
		{
			// The verbosity is unsigned: a negative one does not decode.
			name: "negative verbosity",
			data: "apiVersion: config.graft.dev/v1alpha1\nkind: SchedulerConfiguration\nlogging:\n  verbosity: -1\n",
			want: []string{"cannot unmarshal number -1", "logging.verbosity"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeConfig[*configv1alpha1.SchedulerConfiguration]([]byte(tc.data))
			if err == nil {
				t.Fatal("Decode succeeded, want an error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestLoadNamesFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte("apiVersion: config.graft.dev/v1alpha1\nkind: SchedulerConfiguration\nstrategy: x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := LoadConfig[*configv1alpha1.SchedulerConfiguration](path)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "strategy") {
		t.Errorf("Load error %v should name the file and the field", err)
	}
	if _, err := LoadConfig[*configv1alpha1.SchedulerConfiguration](filepath.Join(t.TempDir(), "missing.yaml")); err == nil {
		t.Error("Load of a missing file succeeded")
	}
}

// A file written for graft's own logging block, before it became
// component-base's, loads unchanged from disk.
func TestLoadTodaysLoggingBlock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	data := "apiVersion: config.graft.dev/v1alpha1\nkind: CapacityAnnotatorConfiguration\nlogging: {verbosity: 2, format: json}\n"
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig[*configv1alpha1.CapacityAnnotatorConfiguration](path)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if cfg.Logging.Verbosity != 2 || cfg.Logging.Format != logsapi.JSONLogFormat || cfg.Logging.FlushFrequency.Duration.Duration != logsapi.LogFlushFreqDefault {
		t.Errorf("logging: got verbosity %d format %q flushFrequency %v, want 2, json and the default", cfg.Logging.Verbosity, cfg.Logging.Format, cfg.Logging.FlushFrequency.Duration)
	}
}

func TestDecodeRefusesUnknownLogFormat(t *testing.T) {
	_, err := DecodeConfig[*configv1alpha1.DeschedulerConfiguration]([]byte(
		"apiVersion: config.graft.dev/v1alpha1\nkind: DeschedulerConfiguration\nlogging:\n  format: xml\n"))
	var invalid *InvalidConfigError
	if !errors.As(err, &invalid) {
		t.Fatalf("Decode: got %v, want an InvalidConfigError", err)
	}
	if len(invalid.Errors) != 1 || invalid.Errors[0].Field != "logging.format" || !strings.Contains(err.Error(), `logging.format: `) ||
		!strings.Contains(err.Error(), `"xml"`) {
		t.Errorf("error %q should name logging.format and the value, once", err)
	}
}

// The logging block is component-base's: vmodule and flushFrequency are
// read, and component-base's rules apply to them.
func TestDecodeComponentBaseLogging(t *testing.T) {
	cfg, err := DecodeConfig[*configv1alpha1.SchedulerConfiguration]([]byte(`
apiVersion: config.graft.dev/v1alpha1
kind: SchedulerConfiguration
logging:
  verbosity: 3
  flushFrequency: 2s
  vmodule:
  - filePattern: scheduler*
    verbosity: 5
`))
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	l := cfg.Logging
	if l.Verbosity != 3 || l.Format != logsapi.DefaultLogFormat || l.FlushFrequency.Duration.Duration != 2*time.Second ||
		len(l.VModule) != 1 || l.VModule[0] != (logsapi.VModuleItem{FilePattern: "scheduler*", Verbosity: 5}) {
		t.Errorf("logging: %+v", l)
	}

	_, err = DecodeConfig[*configv1alpha1.SchedulerConfiguration]([]byte(`
apiVersion: config.graft.dev/v1alpha1
kind: SchedulerConfiguration
logging:
  format: json
  vmodule:
  - filePattern: scheduler*
    verbosity: 5
`))
	if err == nil || !strings.Contains(err.Error(), "logging.vmodule: Forbidden: Only supported for text log format") {
		t.Errorf("vmodule with json: got %v, want logging.vmodule refused", err)
	}
}
