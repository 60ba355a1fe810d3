//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	promapi "github.com/prometheus/client_golang/api"
	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
	"sigs.k8s.io/yaml"

	"github.com/graft-dev/graft/pkg/controlplane"
	"github.com/graft-dev/graft/test/charts"
	"github.com/graft-dev/graft/test/e2e/landscapegen"
)

// Scenario 9 runs a real Prometheus (Debian's) scraping the suite's
// daemons, with the alert rules their charts render, as an operator's
// Prometheus would: the rules evaluate without error on real series, the
// seed capacity alert fires when a seed is filled to 90%, and every query of
// the charts' dashboards returns data.
var _ = Describe("Scenario 9: dashboards and alerts against a real Prometheus", processLabel, Label("prometheus"), Ordered, func() {
	l := landscapegen.Generate(landscapegen.Spec{
		Scenario: "s9", Providers: []string{"aws"}, RegionsPerProvider: 1, SeedsPerRegion: 1, SeedCapacity: 10, Shoots: 9,
	})
	seed := l.Seeds[0].Name
	var prom promv1.API

	BeforeAll(func(ctx SpecContext) {
		bin, err := exec.LookPath("prometheus")
		Expect(err).NotTo(HaveOccurred(), "make deps installs Debian's prometheus")
		dir, err := os.MkdirTemp("", "graft-e2e-prometheus-")
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(os.RemoveAll, dir)

		By("rendering the charts' rules and a scrape job per chart, named as prometheus-operator names a ServiceMonitor's")
		var ruleFiles []string
		var jobs []any
		for _, chart := range []string{"graft-scheduler", "graft-capacity-annotator", "graft-descheduler"} {
			opts := charts.TemplateOptions{Release: chart, Namespace: componentNamespace, Set: lease}
			if chart == "graft-capacity-annotator" {
				// Seconds rather than the default 5 minutes, to see it fire.
				opts.Set = append(opts.Set, "metrics.prometheusRule.seedCapacity.for=5s")
			}
			rules, err := charts.RuleFile(ctx, chart, opts)
			Expect(err).NotTo(HaveOccurred())
			path := filepath.Join(dir, chart+".rules.yaml")
			Expect(os.WriteFile(path, rules, 0o644)).To(Succeed())
			ruleFiles = append(ruleFiles, path)
			var targets []string
			for _, c := range running {
				if c.Chart == chart {
					targets = append(targets, c.MetricsAddr)
				}
			}
			Expect(targets).NotTo(BeEmpty(), "no running %s", chart)
			jobs = append(jobs, map[string]any{
				"job_name":        chart + "-metrics",
				"scrape_interval": "1s",
				"static_configs":  []any{map[string]any{"targets": targets, "labels": map[string]string{"namespace": componentNamespace}}},
			})
		}
		config, err := yaml.Marshal(map[string]any{
			"global":         map[string]any{"scrape_interval": "1s", "evaluation_interval": "1s"},
			"rule_files":     ruleFiles,
			"scrape_configs": jobs,
		})
		Expect(err).NotTo(HaveOccurred())
		configPath := filepath.Join(dir, "prometheus.yml")
		Expect(os.WriteFile(configPath, config, 0o644)).To(Succeed())

		By("starting Prometheus")
		ports, err := controlplane.FreePorts("127.0.0.1", 1)
		Expect(err).NotTo(HaveOccurred())
		addr := fmt.Sprintf("127.0.0.1:%d", ports[0])
		proc, err := controlplane.StartProcess(dir, "prometheus", bin, "--config.file="+configPath,
			"--storage.tsdb.path="+filepath.Join(dir, "data"), "--web.listen-address="+addr, "--log.level=warn")
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { _ = proc.Stop() })
		Expect(proc.WaitHTTP(ctx, "http://"+addr+"/-/ready", time.Minute)).To(Succeed())
		client, err := promapi.NewClient(promapi.Config{Address: "http://" + addr})
		Expect(err).NotTo(HaveOccurred())
		prom = promv1.NewAPI(client)

		By("creating a seed of 10 shoots and 9 shoots the scheduler places on it")
		Expect(createLandscape(ctx, l)).To(Succeed())
	}, NodeTimeout(3*time.Minute))

	It("scrapes every daemon and evaluates every rule without error, seeing each component's leader", func(ctx SpecContext) {
		Eventually(func(g Gomega) {
			targets, err := prom.Targets(ctx)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(targets.Active).To(HaveLen(len(running)))
			for _, t := range targets.Active {
				g.Expect(t.Health).To(BeEquivalentTo(promv1.HealthGood), "target %s: %s", t.ScrapeURL, t.LastError)
			}
			rules, err := prom.Rules(ctx, nil)
			g.Expect(err).NotTo(HaveOccurred())
			n := 0
			for _, group := range rules.Groups {
				for _, r := range group.Rules {
					alert, ok := r.(promv1.AlertingRule)
					g.Expect(ok).To(BeTrue(), "rule %v", r)
					n++
					g.Expect(alert.Health).To(BeEquivalentTo(promv1.RuleHealthGood), "rule %s: %s", alert.Name, alert.LastError)
					if alert.Name == "GraftNoLeader" {
						// A leader of each component is scraped.
						g.Expect(alert.State).To(Equal("inactive"), "GraftNoLeader of group %s", group.Name)
					}
				}
			}
			g.Expect(n).To(BeNumerically(">=", 3*4), "rules loaded")
		}).WithContext(ctx).WithTimeout(time.Minute).WithPolling(time.Second).Should(Succeed())
	}, SpecTimeout(2*time.Minute))

	It("fires GraftSeedApproachingCapacity (warning, not critical) for a seed filled to 90%", func(ctx SpecContext) {
		Eventually(func(g Gomega) {
			g.Expect(shootsOn(g, ctx, seed)).To(Equal(int64(9)))
		}).WithContext(ctx).WithTimeout(time.Minute).WithPolling(time.Second).Should(Succeed())
		Eventually(func(g Gomega) {
			alerts, err := prom.Alerts(ctx)
			g.Expect(err).NotTo(HaveOccurred())
			var states []string
			for _, a := range alerts.Alerts {
				if a.Labels["alertname"] == "GraftSeedApproachingCapacity" && string(a.Labels["seed"]) == seed {
					states = append(states, fmt.Sprintf("%s/%s", a.Labels["severity"], a.State))
				}
			}
			g.Expect(states).To(ConsistOf("warning/firing"))
		}).WithContext(ctx).WithTimeout(time.Minute).WithPolling(time.Second).Should(Succeed())
		value, _, _, err := prom.Query(ctx, fmt.Sprintf(`graft_seed_usage{seed=%q, resource="shoots"}`, seed), time.Now())
		Expect(err).NotTo(HaveOccurred())
		Expect(value.(model.Vector)).To(HaveLen(1))
		Expect(float64(value.(model.Vector)[0].Value)).To(Equal(9.0))
	}, SpecTimeout(3*time.Minute))

	It("returns data for every query of the charts' dashboards", func(ctx SpecContext) {
		dashboards, err := charts.Dashboards("graft-scheduler")
		Expect(err).NotTo(HaveOccurred())
		Expect(dashboards).NotTo(BeEmpty())
		for _, d := range dashboards {
			Expect(d.Queries()).NotTo(BeEmpty(), "dashboard %s", d.Title)
			for _, q := range d.Queries() {
				expr := q.Evaluable("1m")
				Eventually(func(g Gomega) {
					value, warnings, _, err := prom.Query(ctx, expr, time.Now())
					g.Expect(err).NotTo(HaveOccurred(), "panel %q: %s", q.Panel, expr)
					g.Expect(warnings).To(BeEmpty())
					g.Expect(value.Type()).To(Equal(model.ValVector), "panel %q: %s", q.Panel, expr)
					g.Expect(value.(model.Vector)).NotTo(BeEmpty(), "panel %q of %s returns no data: %s", q.Panel, filepath.Base(d.File), expr)
				}).WithContext(ctx).WithTimeout(30 * time.Second).WithPolling(time.Second).Should(Succeed())
			}
		}
	}, SpecTimeout(5*time.Minute))
})
