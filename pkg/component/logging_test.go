package component

import (
	"testing"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/api/equality"
	logsapi "k8s.io/component-base/logs/api/v1"
	"k8s.io/klog/v2"
)

// One test only: logging can be applied once per process.
func TestFlagsWinOverTheFile(t *testing.T) {
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	o := addLoggingFlags(fs)
	if err := fs.Parse([]string{"-v=4"}); err != nil {
		t.Fatal(err)
	}
	file := logsapi.NewLoggingConfiguration()
	file.Verbosity = 1
	if err := o.Apply(*file); err != nil {
		t.Fatal(err)
	}
	if !klog.V(4).Enabled() || klog.V(5).Enabled() {
		t.Errorf("verbosity: V(4) %v, V(5) %v; want the flag's 4", klog.V(4).Enabled(), klog.V(5).Enabled())
	}
}

// Each logging flag given on the command line replaces the file's field it
// sets, and only that field; the file's other fields stay.
func TestEffectiveLogging(t *testing.T) {
	newFile := func() *logsapi.LoggingConfiguration {
		c := logsapi.NewLoggingConfiguration()
		c.Verbosity = 2
		c.FlushFrequency.Duration.Duration = 2 * time.Second
		c.VModule = logsapi.VModuleConfiguration{{FilePattern: "scheduler*", Verbosity: 3}}
		return c
	}
	for _, tc := range []struct {
		name   string
		args   []string
		modify func(want *logsapi.LoggingConfiguration)
	}{
		{"no flags", nil, func(*logsapi.LoggingConfiguration) {}},
		{"verbosity", []string{"-v=4"}, func(w *logsapi.LoggingConfiguration) { w.Verbosity = 4 }},
		{"format", []string{"--logging-format=json"}, func(w *logsapi.LoggingConfiguration) { w.Format = logsapi.JSONLogFormat }},
		{"vmodule replaces the file's", []string{"--vmodule=queue=5"}, func(w *logsapi.LoggingConfiguration) {
			w.VModule = logsapi.VModuleConfiguration{{FilePattern: "queue", Verbosity: 5}}
		}},
		{"flush frequency", []string{"--log-flush-frequency=1s"}, func(w *logsapi.LoggingConfiguration) {
			w.FlushFrequency.Duration.Duration = time.Second
		}},
		{"a flag set to the file's value", []string{"-v=2", "--logging-format=text"}, func(*logsapi.LoggingConfiguration) {}},
		{"other flags are not logging's", []string{"--config=x"}, func(*logsapi.LoggingConfiguration) {}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
			fs.String("config", "", "")
			o := addLoggingFlags(fs)
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			file := newFile()
			want := newFile()
			tc.modify(want)
			got := effectiveLogging(*file, fs, o.config)
			if !equality.Semantic.DeepEqual(got, want) {
				t.Errorf("effective logging:\n got %+v\nwant %+v", got, want)
			}
			if !equality.Semantic.DeepEqual(file, newFile()) {
				t.Errorf("the file's configuration changed: %+v", file)
			}
		})
	}
}
