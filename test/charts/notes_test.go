//go:build integration

package charts

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/graft-dev/graft/test/framework"
)

// TestNotes renders each component chart's NOTES.txt with each variant and
// checks that it points the operator at the Lease, the health port and the
// metrics port the release really has.
func TestNotes(t *testing.T) {
	env := framework.Shared(t)
	if env.Kubeconfig == "" {
		t.Skip("no kubeconfig for helm install --dry-run")
	}
	ctx := context.Background()
	for _, c := range components {
		for _, v := range variants {
			t.Run(c.chart+"/"+v.name, func(t *testing.T) {
				// helm install --dry-run maps every object to the API, and
				// the test garden has no ServiceMonitor CRD.
				set := append(slices.Clone(v.set), "metrics.serviceMonitor.enabled=false")
				opts := TemplateOptions{Release: "graft", Namespace: "graft-system", ValuesFiles: v.files(c.chart), Set: set}
				objs, err := Template(ctx, c.chart, opts)
				if err != nil {
					t.Fatal(err)
				}
				cm := one[corev1.ConfigMap](t, index(t, objs), "ConfigMap")
				_, common, err := c.load([]byte(cm.Data["config.yaml"]))
				if err != nil {
					t.Fatal(err)
				}
				notes, err := Notes(ctx, c.chart, env.Kubeconfig, opts)
				if err != nil {
					t.Fatal(err)
				}
				t.Log("\n" + notes)

				var want, wantNot []string
				le := common.LeaderElection
				if v.wantLease {
					want = append(want,
						fmt.Sprintf("Lease %s/%s", le.ResourceNamespace, le.ResourceName),
						fmt.Sprintf("kubectl -n %s get lease %s -o jsonpath=", le.ResourceNamespace, le.ResourceName))
				} else {
					want = append(want, "Leader election is off")
					wantNot = append(wantNot, "get lease")
				}
				health := strconv.Itoa(int(portOf(t, common.Server.HealthProbeBindAddress)))
				forward := "port-forward pod/$LEADER " + health
				if v.wantMetrics {
					metrics := strconv.Itoa(int(portOf(t, common.Server.MetricsBindAddress)))
					if metrics != health {
						forward += " " + metrics
					}
					want = append(want, "curl -s localhost:"+metrics+"/metrics", `graft_fence_refused_writes_total{component="`+c.chart+`"}`)
					want = append(want, notesMetrics[c.chart]...)
				} else {
					want = append(want, `Off (config.server.metricsBindAddress is "0")`)
					wantNot = append(wantNot, "/metrics")
				}
				want = append(want, forward+" &\n", "curl -s localhost:"+health+"/healthz", "curl -s 'localhost:"+health+"/readyz?verbose'")
				if c.chart == "graft-descheduler" && v.wantLease && (le.ResourceNamespace != "garden" || le.ResourceName != "graft-descheduler") {
					want = append(want, fmt.Sprintf("--descheduler-lease-namespace=%s --descheduler-lease-name=%s", le.ResourceNamespace, le.ResourceName))
				} else {
					wantNot = append(wantNot, "--descheduler-lease")
				}
				if c.chart == "graft-scheduler" && v.wantLease {
					want = append(want, fmt.Sprintf("kubectl -n %s get lease %s -o jsonpath='{.metadata.annotations.scheduler\\.graft\\.dev/scheduling-configuration}", le.ResourceNamespace, le.ResourceName))
					if le.ResourceNamespace != "garden" || le.ResourceName != "graft-scheduler" {
						want = append(want, fmt.Sprintf("--scheduler-lease-namespace=%s --scheduler-lease-name=%s", le.ResourceNamespace, le.ResourceName))
					} else {
						wantNot = append(wantNot, "--scheduler-lease")
					}
				} else {
					wantNot = append(wantNot, "scheduling-configuration", "--scheduler-lease")
				}
				for _, s := range want {
					if !strings.Contains(notes, s) {
						t.Errorf("NOTES.txt does not contain %q", s)
					}
				}
				for _, s := range wantNot {
					if strings.Contains(notes, s) {
						t.Errorf("NOTES.txt contains %q", s)
					}
				}
			})
		}
	}
}

// notesMetrics are the component metrics each chart's NOTES.txt names.
var notesMetrics = map[string][]string{
	"graft-scheduler": {
		`graft_scheduler_pending_shoots{queue="unschedulable"}`,
		`graft_scheduler_schedule_attempts_total{result="error"}`,
	},
	"graft-descheduler": {
		`graft_descheduler_evictions_total{result="skipped_no_fit"}`,
		`graft_descheduler_pending_evicted`,
	},
	"graft-capacity-annotator": {
		`graft_seed_usage{resource="shoots"}`,
		`graft_capacity_annotator_reconciles_total{result="error"}`,
	},
}
