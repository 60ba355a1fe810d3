package charts

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"
)

// RuleFile renders a component chart with its PrometheusRule on and returns
// the rule's spec as a Prometheus rule file, for promtool and for a
// Prometheus server.
func RuleFile(ctx context.Context, chart string, opts TemplateOptions) ([]byte, error) {
	opts.Set = append([]string{"metrics.prometheusRule.enabled=true"}, opts.Set...)
	objs, err := Template(ctx, chart, opts)
	if err != nil {
		return nil, err
	}
	for _, o := range objs {
		if o.GetKind() != "PrometheusRule" {
			continue
		}
		spec, ok := o.Object["spec"]
		if !ok {
			return nil, fmt.Errorf("%s: PrometheusRule %s has no spec", chart, o.GetName())
		}
		return yaml.Marshal(spec)
	}
	return nil, fmt.Errorf("%s: no PrometheusRule rendered", chart)
}

// RuleFileContent is the part of a rule file the tests read.
type RuleFileContent struct {
	Groups []struct {
		Name  string `json:"name"`
		Rules []Rule `json:"rules"`
	} `json:"groups"`
}

// Rule is one alerting rule.
type Rule struct {
	Alert       string            `json:"alert"`
	Expr        string            `json:"expr"`
	For         string            `json:"for"`
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
}

// DashboardQuery is one query of a dashboard panel.
type DashboardQuery struct {
	Panel string
	Expr  string
}

// Panel is one panel of a dashboard, rows included.
type Panel struct {
	Type       string `json:"type"`
	Title      string `json:"title"`
	Datasource struct {
		UID string `json:"uid"`
	} `json:"datasource"`
	Targets []struct {
		Expr string `json:"expr"`
	} `json:"targets"`
}

// Dashboard is one of a chart's dashboards (dashboards/*.json).
type Dashboard struct {
	File   string  `json:"-"`
	Raw    []byte  `json:"-"`
	UID    string  `json:"uid"`
	Title  string  `json:"title"`
	Panels []Panel `json:"panels"`
}

// Queries lists the queries of every panel.
func (d Dashboard) Queries() []DashboardQuery {
	var out []DashboardQuery
	for _, p := range d.Panels {
		for _, t := range p.Targets {
			out = append(out, DashboardQuery{Panel: p.Title, Expr: t.Expr})
		}
	}
	return out
}

// Dashboards reads the dashboards a chart ships.
func Dashboards(chart string) ([]Dashboard, error) {
	dir, err := Dir(chart)
	if err != nil {
		return nil, err
	}
	files, err := filepath.Glob(filepath.Join(dir, "dashboards", "*.json"))
	if err != nil {
		return nil, err
	}
	var out []Dashboard
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		d := Dashboard{File: f, Raw: data}
		if err := json.Unmarshal(data, &d); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		out = append(out, d)
	}
	return out, nil
}

// Evaluable returns a dashboard query as Prometheus evaluates it, with
// Grafana's $__rate_interval replaced by window.
func (q DashboardQuery) Evaluable(window string) string {
	return strings.ReplaceAll(q.Expr, "$__rate_interval", window)
}
