package v1alpha1

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	logsapi "k8s.io/component-base/logs/api/v1"
	"k8s.io/utils/ptr"
)

func defaultedCommon() CommonConfiguration {
	var c CommonConfiguration
	c.Default(CommonDefaults{LeaseName: "graft-test", HealthProbeBindAddress: ":10251", MetricsBindAddress: ":19251"})
	return c
}

func validateCommon(c CommonConfiguration) string {
	return c.Validate(nil).ToAggregate().Error()
}

// The clientConnection and leaderElection blocks are validated by
// component-base, with graft's own rules added; every error names its field
// under the block.
func TestCommonValidation(t *testing.T) {
	for _, tc := range []struct {
		name   string
		modify func(*CommonConfiguration)
		want   []string
	}{
		{"negative burst", func(c *CommonConfiguration) { c.ClientConnection.Burst = -1 },
			[]string{"clientConnection.burst: Invalid value: -1: must be non-negative"}},
		{"qps without burst", func(c *CommonConfiguration) { c.ClientConnection.QPS, c.ClientConnection.Burst = 5, 0 },
			[]string{"clientConnection.burst: Invalid value: 0: must be at least 1 when qps is positive"}},
		{"content type", func(c *CommonConfiguration) { c.ClientConnection.ContentType = "text/plain" },
			[]string{`clientConnection.contentType: Unsupported value: "text/plain"`}},
		{"zero retry period", func(c *CommonConfiguration) { c.LeaderElection.RetryPeriod = metav1.Duration{} },
			[]string{`leaderElection.retryPeriod: Invalid value: "0s": must be greater than zero`}},
		{"renew deadline not above retry period", func(c *CommonConfiguration) {
			c.LeaderElection.RetryPeriod = metav1.Duration{Duration: 10 * time.Second}
		}, []string{`leaderElection.renewDeadline: Invalid value: "10s": must be greater than retryPeriod`}},
		{"lease duration not above renew deadline", func(c *CommonConfiguration) {
			c.LeaderElection.LeaseDuration = metav1.Duration{Duration: 10 * time.Second}
		}, []string{"leaderElection.leaseDuration: Invalid value: \"10s\": must be greater than `RenewDeadline`"}},
		{"other lock", func(c *CommonConfiguration) { c.LeaderElection.ResourceLock = "endpoints" },
			[]string{`leaderElection.resourceLock: Unsupported value: "endpoints"`}},
		{"no lock", func(c *CommonConfiguration) { c.LeaderElection.ResourceLock = "" },
			[]string{"leaderElection.resourceLock: Required value"}},
		{"no lease name", func(c *CommonConfiguration) { c.LeaderElection.ResourceName = "" },
			[]string{"leaderElection.resourceName: Required value"}},
		{"bad lease name", func(c *CommonConfiguration) { c.LeaderElection.ResourceName = "Not_A_Name" },
			[]string{`leaderElection.resourceName: Invalid value: "Not_A_Name"`}},
		{"bad lease namespace", func(c *CommonConfiguration) { c.LeaderElection.ResourceNamespace = "a.b" },
			[]string{`leaderElection.resourceNamespace: Invalid value: "a.b"`}},
		{"unknown log format", func(c *CommonConfiguration) { c.Logging.Format = "xml" },
			[]string{`logging.format: Invalid value: "xml": Unsupported log format`}},
		{"zero flush frequency", func(c *CommonConfiguration) { c.Logging.FlushFrequency.Duration.Duration = 0 },
			[]string{"logging.flushFrequency: Invalid value"}},
		{"vmodule with json", func(c *CommonConfiguration) {
			c.Logging.Format = logsapi.JSONLogFormat
			c.Logging.VModule = logsapi.VModuleConfiguration{{FilePattern: "scheduler*", Verbosity: 4}}
		}, []string{"logging.vmodule: Forbidden: Only supported for text log format"}},
		{"bad vmodule pattern", func(c *CommonConfiguration) {
			c.Logging.VModule = logsapi.VModuleConfiguration{{FilePattern: "a=b", Verbosity: 4}}
		}, []string{`logging.vmodule[0]: Invalid value: "a=b"`}},
		// The alpha format options need a feature gate graft does not enable.
		{"split stream", func(c *CommonConfiguration) { c.Logging.Options.Text.SplitStream = true },
			[]string{"logging.options.text.splitStream: Forbidden: Feature LoggingAlphaOptions is disabled"}},
		{"unset leaderElect elects a leader", func(c *CommonConfiguration) {
			c.LeaderElection.LeaderElect = nil
			c.LeaderElection.ResourceName = ""
		}, []string{"leaderElection.resourceName: Required value"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := defaultedCommon()
			tc.modify(&c)
			errs := c.Validate(nil)
			if len(errs) != len(tc.want) {
				t.Errorf("got %d errors, want %d: %v", len(errs), len(tc.want), errs)
			}
			got := validateCommon(c)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("errors %q do not contain %q", got, w)
				}
			}
		})
	}
}

func TestCommonValidationAcceptsDefaults(t *testing.T) {
	c := defaultedCommon()
	if errs := c.Validate(nil); len(errs) > 0 {
		t.Errorf("defaulted common configuration is invalid: %v", errs)
	}
}

// The logging block's defaults are component-base's recommended ones, with
// text as the format, and the json format validates.
func TestCommonLoggingDefaults(t *testing.T) {
	c := defaultedCommon()
	if c.Logging.Format != logsapi.DefaultLogFormat || c.Logging.FlushFrequency.Duration.Duration != logsapi.LogFlushFreqDefault || c.Logging.Verbosity != 0 {
		t.Errorf("logging defaults: %+v", c.Logging)
	}
	c.Logging.Format = logsapi.JSONLogFormat
	if errs := c.Validate(nil); len(errs) > 0 {
		t.Errorf("json format refused: %v", errs)
	}
}

func TestCommonValidationSkipsLeaderElectionWhenDisabled(t *testing.T) {
	c := defaultedCommon()
	c.LeaderElection.LeaderElect = ptr.To(false)
	c.LeaderElection.ResourceName = ""
	c.LeaderElection.ResourceLock = "endpoints"
	if errs := c.Validate(nil); len(errs) > 0 {
		t.Errorf("leaderElect: false, yet the block was validated: %v", errs)
	}
}
