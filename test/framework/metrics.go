package framework

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// ScrapeMetrics returns what url (a component's /metrics) serves.
func ScrapeMetrics(ctx context.Context, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: %s", url, resp.Status)
	}
	return io.ReadAll(resp.Body)
}

// MetricSample finds the sample called name, with its labels as served (for
// example `graft_descheduler_evictions_total{plugin="NoExecuteTaints",result="evicted"}`),
// in what server served on /metrics.
func MetricSample(body []byte, server, name string) (float64, error) {
	for _, line := range strings.Split(string(body), "\n") {
		if value, ok := strings.CutPrefix(line, name+" "); ok {
			return strconv.ParseFloat(strings.TrimSpace(value), 64)
		}
	}
	return 0, fmt.Errorf("%s serves no sample %s", server, name)
}

// MetricSum adds up the samples of the counter or gauge family name whose
// labels include every label given, in what server served on /metrics; a
// family that is not served sums to 0.
func MetricSum(body []byte, server, name string, labels map[string]string) (float64, error) {
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		return 0, fmt.Errorf("%s serves metrics that do not parse: %w", server, err)
	}
	return sumFamily(families[name], labels), nil
}

// GatheredSum is MetricSum over what a registry gathers (its Gather), for
// components run in the test process.
func GatheredSum(gather func() ([]*dto.MetricFamily, error), name string, labels map[string]string) (float64, error) {
	families, err := gather()
	if err != nil {
		return 0, err
	}
	for _, f := range families {
		if f.GetName() == name {
			return sumFamily(f, labels), nil
		}
	}
	return 0, nil
}

// sumFamily adds up a family's samples whose labels include every label
// given; nil sums to 0.
func sumFamily(family *dto.MetricFamily, labels map[string]string) float64 {
	sum := 0.0
samples:
	for _, m := range family.GetMetric() {
		for k, v := range labels {
			if !slices.ContainsFunc(m.GetLabel(), func(l *dto.LabelPair) bool { return l.GetName() == k && l.GetValue() == v }) {
				continue samples
			}
		}
		switch {
		case m.Counter != nil:
			sum += m.GetCounter().GetValue()
		case m.Gauge != nil:
			sum += m.GetGauge().GetValue()
		case m.Untyped != nil:
			sum += m.GetUntyped().GetValue()
		}
	}
	return sum
}
