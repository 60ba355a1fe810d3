package component

import (
	"testing"

	"github.com/spf13/pflag"
	"k8s.io/klog/v2"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
)

// One test only: logging can be applied once per process.
func TestFlagsWinOverTheFile(t *testing.T) {
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	o := addLoggingFlags(fs)
	if err := fs.Parse([]string{"-v=4"}); err != nil {
		t.Fatal(err)
	}
	if err := o.Apply(configv1alpha1.LoggingConfiguration{Verbosity: 1, Format: configv1alpha1.LogFormatText}); err != nil {
		t.Fatal(err)
	}
	if !klog.V(4).Enabled() || klog.V(5).Enabled() {
		t.Errorf("verbosity: V(4) %v, V(5) %v; want the flag's 4", klog.V(4).Enabled(), klog.V(5).Enabled())
	}
}
