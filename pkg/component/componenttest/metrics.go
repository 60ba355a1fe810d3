package componenttest

import (
	"fmt"

	"k8s.io/component-base/metrics"
)

// MetricDeclarations gathers reg and returns each metric family's
// declaration by name, as one line: type, label names, bucket bounds and
// help, for example
//
//	COUNTER [result] [] "[ALPHA] Reconciles by result."
//
// A vector is gathered only once it holds a series, so record one in each
// before calling it.
func MetricDeclarations(reg metrics.KubeRegistry) (map[string]string, error) {
	families, err := reg.Gather()
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(families))
	for _, f := range families {
		var labels []string
		var buckets []float64
		if ms := f.GetMetric(); len(ms) > 0 {
			for _, l := range ms[0].GetLabel() {
				labels = append(labels, l.GetName())
			}
			for _, b := range ms[0].GetHistogram().GetBucket() {
				buckets = append(buckets, b.GetUpperBound())
			}
		}
		out[f.GetName()] = fmt.Sprintf("%s %v %v %q", f.GetType(), labels, buckets, f.GetHelp())
	}
	return out, nil
}
