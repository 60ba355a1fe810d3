//go:build integration

package charts

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// promtool finds Debian's promtool (hack/install-deps.sh prometheus).
func promtool(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("promtool")
	if err != nil {
		t.Fatalf("promtool is missing (make deps installs Debian's prometheus): %v", err)
	}
	return p
}

// TestAlertRules renders each component chart's PrometheusRule, checks it
// with `promtool check rules` and runs the promtool unit tests of
// testdata/alerts (the chart's own and those of common.yaml): every alert
// must fire in at least one test, and have a summary, a description and a
// runbook in docs/operations.md.
func TestAlertRules(t *testing.T) {
	tool := promtool(t)
	runbooks := runbookAnchors(t)
	common, err := os.ReadFile(filepath.Join("testdata", "alerts", "common.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range components {
		t.Run(c.chart, func(t *testing.T) {
			dir := t.TempDir()
			rules, err := RuleFile(t.Context(), c.chart, TemplateOptions{Release: c.chart, Namespace: "graft-system"})
			if err != nil {
				t.Fatal(err)
			}
			rulesPath := filepath.Join(dir, "rules.yaml")
			if err := os.WriteFile(rulesPath, rules, 0o644); err != nil {
				t.Fatal(err)
			}
			if out, err := exec.CommandContext(t.Context(), tool, "check", "rules", rulesPath).CombinedOutput(); err != nil {
				t.Fatalf("promtool check rules: %v\n%s\n%s", err, out, rules)
			}

			tests := unitTests(t, c.chart, common)
			testPath := filepath.Join(dir, "test.yaml")
			if err := os.WriteFile(testPath, tests, 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.CommandContext(t.Context(), tool, "test", "rules", testPath)
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("promtool test rules: %v\n%s", err, out)
			}

			var file RuleFileContent
			if err := yaml.Unmarshal(rules, &file); err != nil {
				t.Fatal(err)
			}
			fired := firedInTests(t, tests)
			n := 0
			for _, g := range file.Groups {
				for _, r := range g.Rules {
					n++
					if !fired[r.Alert+"/"+r.Labels["severity"]] {
						t.Errorf("alert %s (severity %s) fires in no promtool test", r.Alert, r.Labels["severity"])
					}
					for _, a := range []string{"summary", "description", "runbook_url"} {
						if r.Annotations[a] == "" {
							t.Errorf("alert %s has no %s", r.Alert, a)
						}
					}
					if !runbooks[strings.ToLower(r.Alert)] {
						t.Errorf("alert %s has no runbook: docs/operations.md needs a heading %q", r.Alert, "#### "+r.Alert)
					}
					if r.Labels["component"] != c.chart {
						t.Errorf("alert %s: component label %q, want %q", r.Alert, r.Labels["component"], c.chart)
					}
				}
			}
			if n < 4 {
				t.Errorf("%d alerts rendered, want the component's and the common ones", n)
			}
		})
	}
}

// TestAlertRulesFollowValues: the selector, thresholds and durations come
// from the values; without leader election there is no leader to miss.
func TestAlertRulesFollowValues(t *testing.T) {
	rules, err := RuleFile(t.Context(), "graft-capacity-annotator", TemplateOptions{Release: "annotator", Set: []string{
		`metrics.prometheusRule.selector=namespace="garden-ops"`,
		"metrics.prometheusRule.seedCapacity.for=1m",
		"config.leaderElection.leaderElect=false", "replicaCount=1",
	}, SetJSON: []string{"metrics.prometheusRule.seedCapacity.warning=0.8"}})
	if err != nil {
		t.Fatal(err)
	}
	var file RuleFileContent
	if err := yaml.Unmarshal(rules, &file); err != nil {
		t.Fatal(err)
	}
	var alerts []string
	for _, g := range file.Groups {
		for _, r := range g.Rules {
			alerts = append(alerts, r.Alert)
			if !strings.Contains(r.Expr, `namespace="garden-ops"`) || strings.Contains(r.Expr, "job=") {
				t.Errorf("%s: expression %q does not use the selector of the values", r.Alert, r.Expr)
			}
			if r.Alert == "GraftSeedApproachingCapacity" && r.Labels["severity"] == "warning" {
				if !strings.Contains(r.Expr, ">= 0.8 < 0.98") || r.For != "1m" {
					t.Errorf("warning rule %q for %s, want threshold 0.8 for 1m", r.Expr, r.For)
				}
			}
		}
	}
	if slices.Contains(alerts, "GraftNoLeader") {
		t.Errorf("GraftNoLeader rendered without leader election: %v", alerts)
	}
	if _, err := TemplateRaw(t.Context(), "graft-scheduler", TemplateOptions{Set: []string{"metrics.prometheusRule.enabled=true"}, SetJSON: []string{"metrics.prometheusRule.seedCapacity.warning=2"}}); err == nil {
		t.Error("a threshold above 1 was accepted")
	}
}

// TestDashboardChart: the scheduler chart's dashboard ConfigMap holds the
// JSON of dashboards/ unchanged, labelled for Grafana's sidecar; every
// panel queries Prometheus through the datasource variable.
func TestDashboardChart(t *testing.T) {
	objs, err := Template(t.Context(), "graft-scheduler", TemplateOptions{Release: "graft-scheduler", Set: []string{"metrics.dashboard.enabled=true"}})
	if err != nil {
		t.Fatal(err)
	}
	dashboards, err := Dashboards("graft-scheduler")
	if err != nil {
		t.Fatal(err)
	}
	if len(dashboards) != 1 {
		t.Fatalf("dashboards %v, want graft.json", dashboards)
	}
	want := dashboards[0].Raw
	var cm map[string]any
	for _, o := range objs {
		if o.GetKind() == "ConfigMap" && o.GetName() == "graft-scheduler-dashboards" {
			cm = o.Object
			if o.GetLabels()["grafana_dashboard"] != "1" {
				t.Errorf("labels %v, want grafana_dashboard=1", o.GetLabels())
			}
		}
	}
	if cm == nil {
		t.Fatal("no ConfigMap graft-scheduler-dashboards rendered")
	}
	got := cm["data"].(map[string]any)["graft.json"].(string)
	if strings.TrimSpace(got) != strings.TrimSpace(string(want)) {
		t.Error("the ConfigMap's graft.json differs from dashboards/graft.json")
	}
	for _, p := range dashboards[0].Panels {
		if p.Type == "row" {
			continue
		}
		if len(p.Targets) == 0 || p.Datasource.UID != "${datasource}" {
			t.Errorf("panel %q: %d targets, datasource %q; want queries through ${datasource}", p.Title, len(p.Targets), p.Datasource.UID)
		}
	}
	if n := len(dashboards[0].Queries()); n < 10 {
		t.Errorf("%d queries, want the landscape's", n)
	}
	for _, c := range []string{"graft-capacity-annotator", "graft-descheduler"} {
		if _, err := TemplateRaw(t.Context(), c, TemplateOptions{Set: []string{"metrics.dashboard.enabled=true"}}); err == nil || !strings.Contains(err.Error(), "has no dashboards") {
			t.Errorf("%s: metrics.dashboard.enabled without dashboards: %v, want an error", c, err)
		}
	}
}

// unitTests returns the promtool test file of a chart with the common tests
// (COMPONENT replaced) appended to its own.
func unitTests(t *testing.T, chart string, common []byte) []byte {
	t.Helper()
	own, err := os.ReadFile(filepath.Join("testdata", "alerts", chart+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var file map[string]any
	if err := yaml.Unmarshal(own, &file); err != nil {
		t.Fatal(err)
	}
	var shared []any
	if err := yaml.Unmarshal(bytes.ReplaceAll(common, []byte("COMPONENT"), []byte(chart)), &shared); err != nil {
		t.Fatal(err)
	}
	file["tests"] = append(file["tests"].([]any), shared...)
	out, err := yaml.Marshal(file)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// firedInTests returns alert/severity for every expected firing alert of a
// promtool test file.
func firedInTests(t *testing.T, tests []byte) map[string]bool {
	t.Helper()
	var file struct {
		Tests []struct {
			AlertRuleTest []struct {
				Alertname string `json:"alertname"`
				ExpAlerts []struct {
					ExpLabels map[string]string `json:"exp_labels"`
				} `json:"exp_alerts"`
			} `json:"alert_rule_test"`
		} `json:"tests"`
	}
	if err := yaml.Unmarshal(tests, &file); err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, tc := range file.Tests {
		for _, a := range tc.AlertRuleTest {
			for _, e := range a.ExpAlerts {
				out[a.Alertname+"/"+e.ExpLabels["severity"]] = true
			}
		}
	}
	return out
}

// runbookAnchors returns the anchors of docs/operations.md's headings as
// GitHub makes them (lower case).
func runbookAnchors(t *testing.T) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "operations.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^#+ +(\S+)\s*$`).FindAllStringSubmatch(string(data), -1) {
		out[strings.ToLower(m[1])] = true
	}
	return out
}
