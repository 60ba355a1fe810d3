package component

import (
	"fmt"

	"github.com/spf13/pflag"
	"k8s.io/component-base/featuregate"
	logsapi "k8s.io/component-base/logs/api/v1"
	// The JSON format must be registered before it can be selected.
	_ "k8s.io/component-base/logs/json/register"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
)

// loggingOptions holds the logging flags of one command line.
type loggingOptions struct {
	config *logsapi.LoggingConfiguration
	flags  *pflag.FlagSet
}

// addLoggingFlags adds the standard logging flags to fs.
func addLoggingFlags(fs *pflag.FlagSet) *loggingOptions {
	o := &loggingOptions{config: logsapi.NewLoggingConfiguration(), flags: fs}
	logsapi.AddFlags(o.config, fs)
	return o
}

// Apply configures the process's logger from the file's logging section; a
// flag given on the command line keeps its value. Call it once per process.
func (o *loggingOptions) Apply(l configv1alpha1.LoggingConfiguration) error {
	if f := o.flags.Lookup("v"); f == nil || !f.Changed {
		o.config.Verbosity = logsapi.VerbosityLevel(l.Verbosity)
	}
	if f := o.flags.Lookup("logging-format"); f == nil || !f.Changed {
		o.config.Format = string(l.Format)
	}
	gate := featuregate.NewFeatureGate()
	if err := logsapi.AddFeatureGates(gate); err != nil {
		return fmt.Errorf("registering logging feature gates: %w", err)
	}
	if err := logsapi.ValidateAndApply(o.config, gate); err != nil {
		return fmt.Errorf("applying logging configuration: %w", err)
	}
	return nil
}
