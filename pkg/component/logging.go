package component

import (
	"fmt"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/component-base/featuregate"
	logsapi "k8s.io/component-base/logs/api/v1"
	// The JSON format must be registered before it can be selected.
	_ "k8s.io/component-base/logs/json/register"
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

// loggingFlagFields copies, for each flag logsapi.AddFlags defines, the field
// that flag sets from the flags' configuration to the file's.
var loggingFlagFields = map[string]func(file, flags *logsapi.LoggingConfiguration){
	"logging-format":             func(file, flags *logsapi.LoggingConfiguration) { file.Format = flags.Format },
	logsapi.LogFlushFreqFlagName: func(file, flags *logsapi.LoggingConfiguration) { file.FlushFrequency = flags.FlushFrequency },
	"v":                          func(file, flags *logsapi.LoggingConfiguration) { file.Verbosity = flags.Verbosity },
	"vmodule": func(file, flags *logsapi.LoggingConfiguration) {
		file.VModule = append(logsapi.VModuleConfiguration(nil), flags.VModule...)
	},
	"log-text-split-stream": func(file, flags *logsapi.LoggingConfiguration) {
		file.Options.Text.SplitStream = flags.Options.Text.SplitStream
	},
	"log-text-info-buffer-size": func(file, flags *logsapi.LoggingConfiguration) {
		file.Options.Text.InfoBufferSize = flags.Options.Text.InfoBufferSize
	},
	"log-json-split-stream": func(file, flags *logsapi.LoggingConfiguration) {
		file.Options.JSON.SplitStream = flags.Options.JSON.SplitStream
	},
	"log-json-info-buffer-size": func(file, flags *logsapi.LoggingConfiguration) {
		file.Options.JSON.InfoBufferSize = flags.Options.JSON.InfoBufferSize
	},
}

// effectiveLogging is the file's logging configuration with every logging
// flag given on the command line (fs) taking its value from flags, the
// configuration those flags were parsed into.
func effectiveLogging(file logsapi.LoggingConfiguration, fs *pflag.FlagSet, flags *logsapi.LoggingConfiguration) *logsapi.LoggingConfiguration {
	c := file.DeepCopy()
	fs.Visit(func(f *pflag.Flag) {
		if set, ok := loggingFlagFields[f.Name]; ok {
			set(c, flags)
		}
	})
	return c
}

// Apply configures the process's logger from the file's logging section; a
// flag given on the command line keeps its value. Call it once per process.
func (o *loggingOptions) Apply(file logsapi.LoggingConfiguration) error {
	c := effectiveLogging(file, o.flags, o.config)
	gate := featuregate.NewFeatureGate()
	if err := logsapi.AddFeatureGates(gate); err != nil {
		return fmt.Errorf("registering logging feature gates: %w", err)
	}
	if err := logsapi.ValidateAndApplyAsField(c, gate, field.NewPath("logging")); err != nil {
		return fmt.Errorf("applying logging configuration: %w", err)
	}
	return nil
}
