// Package logging applies a component's logging section (verbosity, text or
// JSON format) through component-base/logs, and accepts the standard klog
// flags (-v, --vmodule, --logging-format), which win over the file.
package logging
