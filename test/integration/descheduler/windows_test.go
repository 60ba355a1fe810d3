//go:build integration

package descheduler

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/component-base/metrics"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/test/charts"
	"github.com/graft-dev/graft/test/framework"
	"github.com/graft-dev/graft/test/integration/descheduler/fixture"
)

// noon is where the descheduler's clock starts in the tests of time: 12:00 UTC.
var noon = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// startClocked runs a descheduler whose clock the test steps.
func startClocked(t *testing.T, ctx context.Context, env *framework.Env, lease string, clk *clocktesting.FakeClock, mutate func(*configv1alpha1.DeschedulerConfiguration)) *fixture.Component {
	t.Helper()
	cfg, err := fixture.DeschedulerConfig(lease, mutate)
	if err != nil {
		t.Fatal(err)
	}
	c := fixture.StartDeschedulerWithClock(ctx, env.Config(), cfg, lease, clk)
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Errorf("descheduler: %v", err)
		}
	})
	framework.WaitFor(t, "the descheduler to lead", time.Minute, func(context.Context) (bool, error) { return c.Writing(), nil })
	return c
}

// annotateSeed merge-patches annotations onto a seed of the landscape.
func annotateSeed(t *testing.T, ctx context.Context, l *fixture.Landscape, short string, annotations map[string]string) {
	t.Helper()
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": annotations}})
	if _, err := l.Graft.CoreV1alpha1().Seeds().Patch(ctx, l.SeedName(short), types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
}

// seedOf reads where a shoot of the namespace is bound ("" for none).
func seedOf(t *testing.T, ctx context.Context, l *fixture.Landscape, namespace, name string) string {
	t.Helper()
	s, err := l.Graft.CoreV1alpha1().Shoots(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return fixture.Of(s)
}

// eventFor waits for an Event with the reason on the named object whose
// message contains part.
func eventFor(t *testing.T, ctx context.Context, l *fixture.Landscape, namespace, reason, object, part string) corev1.Event {
	t.Helper()
	var found corev1.Event
	framework.WaitFor(t, fmt.Sprintf("a %s Event on %s saying %q", reason, object, part), time.Minute, func(ctx context.Context) (bool, error) {
		list, err := l.Kube.CoreV1().Events(namespace).List(ctx, metav1.ListOptions{FieldSelector: "reason=" + reason})
		if err != nil {
			return false, err
		}
		for _, e := range list.Items {
			if e.InvolvedObject.Name == object && strings.Contains(e.Message, part) {
				found = e
				return true, nil
			}
		}
		return false, nil
	})
	return found
}

// metricValue sums the samples of a metric whose labels include want.
func metricValue(t *testing.T, reg metrics.KubeRegistry, name string, want map[string]string) float64 {
	t.Helper()
	return must[float64](t)(framework.GatheredSum(reg.Gather, name, want))
}

// TestMovesWaitForMaintenanceWindows, against the real kube-apiserver with
// the descheduler's clock in the test's hands: on a seed drained in
// maintenance windows, the shoot without a window moves at once and the
// others wait (EvictionDeferred); a move of another cause (an untolerated
// NoExecute taint) is not delayed by its shoot's window; the shoot whose
// window opens moves in it, and the one no window reached moves at the
// deadline. graft-scheduler places each evicted shoot.
func TestMovesWaitForMaintenanceWindows(t *testing.T) {
	ctx, env, l := setup(t, "windows")
	deadline := noon.Add(20 * time.Hour) // 08:00 the next day
	must[*v1alpha1.Seed](t)(l.Seed(ctx, "a", -1))
	annotateSeed(t, ctx, l, "a", map[string]string{v1alpha1.AnnotationDrainDeadline: deadline.Format(time.RFC3339)})
	if err := l.SetTaints(ctx, "a", drainTaint); err != nil {
		t.Fatal(err)
	}
	must[*v1alpha1.Seed](t)(l.Seed(ctx, "b", -1))
	must[*v1alpha1.Seed](t)(l.Seed(ctx, "c", -1, v1alpha1.SeedTaint{Key: "broken", Effect: v1alpha1.TaintEffectNoExecute}))
	window := func(s *v1alpha1.Shoot, begin, end string) *v1alpha1.Shoot {
		s.Spec.Maintenance = &v1alpha1.Maintenance{TimeWindow: &v1alpha1.MaintenanceTimeWindow{Begin: begin, End: end}}
		return s
	}
	shoots := []*v1alpha1.Shoot{
		window(l.NewShoot("evening", "a"), "190000+0100", "200000+0100"), // 18:00-19:00 UTC
		window(l.NewShoot("late", "a"), "100000+0000", "110000+0000"),    // after the deadline
		l.NewShoot("anytime", "a"),
		window(l.NewShoot("urgent", "c"), "180000+0000", "190000+0000"),
	}
	if err := l.CreateShoots(ctx, shoots, 4); err != nil {
		t.Fatal(err)
	}
	startScheduler(t, ctx, env, "windows-scheduler")
	clk := clocktesting.NewFakeClock(noon)
	d := startClocked(t, ctx, env, "windows-descheduler", clk, fast)

	b := l.SeedName("b")
	movedTo := func(name, seed string) func(context.Context) (bool, error) {
		return func(context.Context) (bool, error) { return seedOf(t, ctx, l, l.Name, name) == seed, nil }
	}
	framework.WaitFor(t, "the shoot without a window to move to b", time.Minute, movedTo("anytime", b))
	framework.WaitFor(t, "the urgent move to b, its window notwithstanding", time.Minute, movedTo("urgent", b))
	eventFor(t, ctx, l, l.Name, "EvictionDeferred", "evening", "due at 2026-11-29T18:00:00Z: waits for its maintenance window (18:00:00-19:00:00 UTC)")
	eventFor(t, ctx, l, l.Name, "EvictionDeferred", "late", "due at 2026-11-30T08:00:00Z: its deadline 2026-11-30T08:00:00Z comes before its next maintenance window")
	if got := metricValue(t, d.Registry, "graft_descheduler_shoots_deferred", nil); got != 2 {
		t.Errorf("graft_descheduler_shoots_deferred = %v, want 2", got)
	}
	framework.Never(t, "a deferred shoot to move before its time", 2*time.Second, func() bool {
		return seedOf(t, ctx, l, l.Name, "evening") != l.SeedName("a") || seedOf(t, ctx, l, l.Name, "late") != l.SeedName("a")
	})

	// 18:00:01: the evening window is open. The descheduler looks at the
	// seed again by itself: it asked to when it deferred the move.
	clk.SetTime(noon.Add(6*time.Hour + time.Second))
	framework.WaitFor(t, "the evening shoot to move in its window", time.Minute, movedTo("evening", b))
	if got := seedOf(t, ctx, l, l.Name, "late"); got != l.SeedName("a") {
		t.Fatalf("the late shoot moved to %q in another shoot's window", got)
	}
	// The deadline: the late shoot moves though its window has not come.
	clk.SetTime(deadline.Add(time.Second))
	framework.WaitFor(t, "the late shoot to move at the deadline", time.Minute, movedTo("late", b))
	framework.WaitFor(t, "no move to be deferred any more", time.Minute, func(context.Context) (bool, error) {
		return metricValue(t, d.Registry, "graft_descheduler_shoots_deferred", nil) == 0, nil
	})
}

// TestProjectBudgetHoldsAcrossProjects: three projects drain at once off one
// seed with maxMovesInFlightPerProject 1 and one project given 2: as the
// evicted shoots wait for a seed (no scheduler yet), each project has at
// most its budget in flight; once graft-scheduler places them the drain
// goes on, never above the budgets, until every shoot runs elsewhere.
func TestProjectBudgetHoldsAcrossProjects(t *testing.T) {
	ctx, env, l := setup(t, "projects")
	must[*v1alpha1.Seed](t)(l.Seed(ctx, "a", -1, drainTaint))
	must[*v1alpha1.Seed](t)(l.Seed(ctx, "b", -1))
	budgets := map[string]int{l.Name + "-one": 1, l.Name + "-two": 1, l.Name + "-big": 2}
	var all []*v1alpha1.Shoot
	for ns := range budgets {
		if _, err := l.Kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = l.Graft.CoreV1alpha1().Shoots(ns).DeleteCollection(context.Background(), metav1.DeleteOptions{}, metav1.ListOptions{})
		})
		for i := range 4 {
			s := l.NewShoot(fmt.Sprintf("s%d", i), "a")
			s.Namespace = ns
			all = append(all, s)
		}
	}
	if err := l.CreateShoots(ctx, all, 4); err != nil {
		t.Fatal(err)
	}
	// Watch every shoot of the three projects: the budget must hold at
	// every step, not only at the end.
	var mu sync.Mutex
	unbound := map[string]map[string]bool{}
	worst := map[string]int{}
	w, err := l.Graft.CoreV1alpha1().Shoots(metav1.NamespaceAll).Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	go func() {
		for ev := range w.ResultChan() {
			s, ok := ev.Object.(*v1alpha1.Shoot)
			if !ok || ev.Type == watch.Deleted || budgets[s.Namespace] == 0 {
				continue
			}
			mu.Lock()
			if unbound[s.Namespace] == nil {
				unbound[s.Namespace] = map[string]bool{}
			}
			if fixture.Of(s) == "" {
				unbound[s.Namespace][s.Name] = true
			} else {
				delete(unbound[s.Namespace], s.Name)
			}
			worst[s.Namespace] = max(worst[s.Namespace], len(unbound[s.Namespace]))
			mu.Unlock()
		}
	}()
	d := startDescheduler(t, ctx, env, "projects-descheduler", "projects-descheduler", func(c *configv1alpha1.DeschedulerConfiguration) {
		fast(c)
		c.MaxMovesInFlightPerProject = ptr.To[int32](1)
		c.ProjectBudgets = []configv1alpha1.ProjectBudget{{Namespace: l.Name + "-big", MaxMovesInFlight: 2}}
	})
	framework.WaitFor(t, "each project to have its budget in flight", time.Minute, func(context.Context) (bool, error) {
		mu.Lock()
		defer mu.Unlock()
		for ns, n := range budgets {
			if len(unbound[ns]) != n {
				return false, nil
			}
		}
		return true, nil
	})
	framework.WaitFor(t, "the held moves to count as waiting_for_project", time.Minute, func(context.Context) (bool, error) {
		return metricValue(t, d.Registry, "graft_descheduler_evictions_total", map[string]string{"result": "waiting_for_project"}) > 0, nil
	})
	framework.Never(t, "a project to go over its budget while nothing is placed", 2*time.Second, func() bool {
		mu.Lock()
		defer mu.Unlock()
		for ns, n := range budgets {
			if len(unbound[ns]) > n {
				return true
			}
		}
		return false
	})
	startScheduler(t, ctx, env, "projects-scheduler")
	framework.WaitFor(t, "every shoot of the three projects to run on b", 2*time.Minute, func(ctx context.Context) (bool, error) {
		for _, s := range all {
			if seedOf(t, ctx, l, s.Namespace, s.Name) != l.SeedName("b") {
				return false, nil
			}
		}
		return true, nil
	})
	mu.Lock()
	defer mu.Unlock()
	for ns, n := range budgets {
		if worst[ns] != n {
			t.Errorf("project %s had at most %d moves in flight, want its budget %d", ns, worst[ns], n)
		}
	}
}

// TestStuckMoveReleasesTheBudget: with maxPendingEvicted 1 and no scheduler
// for the first evicted shoot, the drain waits; once that shoot has waited
// migrationTimeout by the descheduler's clock its move is stuck: a MoveStuck
// Event on the shoot and on the seed it left, graft_descheduler_migrations_stuck
// counts it and GraftMoveStuck, as the chart renders it, fires on that count
// (promtool), and it holds the next eviction back no more.
func TestStuckMoveReleasesTheBudget(t *testing.T) {
	ctx, env, l := setup(t, "stuck")
	must[*v1alpha1.Seed](t)(l.Seed(ctx, "a", -1, drainTaint))
	must[*v1alpha1.Seed](t)(l.Seed(ctx, "b", -1))
	if err := l.CreateShoots(ctx, []*v1alpha1.Shoot{l.NewShoot("first", "a"), l.NewShoot("second", "a")}, 2); err != nil {
		t.Fatal(err)
	}
	clk := clocktesting.NewFakeClock(noon)
	d := startClocked(t, ctx, env, "stuck-descheduler", clk, func(c *configv1alpha1.DeschedulerConfiguration) {
		fast(c)
		c.MaxPendingEvicted = ptr.To[int32](1)
		c.MigrationTimeout = &metav1.Duration{Duration: 10 * time.Minute}
	})
	evicted := func() []string {
		var out []string
		for _, s := range must[[]v1alpha1.Shoot](t)(l.Shoots(ctx)) {
			if fixture.Of(&s) == "" {
				out = append(out, s.Name)
			}
		}
		return out
	}
	framework.WaitFor(t, "one shoot to be evicted", time.Minute, func(context.Context) (bool, error) { return len(evicted()) == 1, nil })
	first := evicted()[0]
	framework.Never(t, "a second eviction while the first waits", 2*time.Second, func() bool { return len(evicted()) > 1 })
	if got := metricValue(t, d.Registry, "graft_descheduler_migrations_stuck", nil); got != 0 {
		t.Errorf("graft_descheduler_migrations_stuck = %v before the timeout", got)
	}
	// Past migrationTimeout and the next pass (interval 1m).
	clk.SetTime(noon.Add(11 * time.Minute))
	eventFor(t, ctx, l, l.Name, "MoveStuck", first, "The shoot's move off seed "+l.SeedName("a")+" is stuck: in flight since 2026-11-29T12:00:00Z, longer than migrationTimeout (10m0s)")
	eventFor(t, ctx, l, "default", "MoveStuck", l.SeedName("a"), "The move of shoot "+l.Name+"/"+first+" off this seed is stuck")
	framework.WaitFor(t, "graft_descheduler_migrations_stuck to count the stuck move", time.Minute, func(context.Context) (bool, error) {
		return metricValue(t, d.Registry, "graft_descheduler_migrations_stuck", nil) == 1, nil
	})
	stuckAlertFires(t, ctx, metricValue(t, d.Registry, "graft_descheduler_migrations_stuck", nil))
	framework.WaitFor(t, "the second shoot to be evicted, the stuck move holding nothing back", time.Minute, func(context.Context) (bool, error) {
		return len(evicted()) == 2, nil
	})
}

// stuckAlertFires runs graft-descheduler's chart rules, as the chart
// renders them, in promtool over the stuck count the running descheduler
// reports, held for ten minutes, and checks that GraftMoveStuck fires.
func stuckAlertFires(t *testing.T, ctx context.Context, stuck float64) {
	t.Helper()
	tool, err := exec.LookPath("promtool")
	if err != nil {
		t.Fatalf("promtool is missing (make deps installs Debian's prometheus): %v", err)
	}
	rules, err := charts.RuleFile(ctx, "graft-descheduler", charts.TemplateOptions{Release: "graft-descheduler", Namespace: "graft-system"})
	if err != nil {
		t.Fatal(err)
	}
	var file charts.RuleFileContent
	if err := yaml.Unmarshal(rules, &file); err != nil {
		t.Fatal(err)
	}
	var rule *charts.Rule
	for _, g := range file.Groups {
		for i := range g.Rules {
			if g.Rules[i].Alert == "GraftMoveStuck" {
				rule = &g.Rules[i]
			}
		}
	}
	if rule == nil {
		t.Fatalf("the chart renders no GraftMoveStuck:\n%s", rules)
	}
	value := strconv.FormatFloat(stuck, 'f', -1, 64)
	annotations := map[string]string{}
	for k, v := range rule.Annotations {
		annotations[k] = strings.ReplaceAll(v, "{{ $value }}", value)
	}
	labels := maps.Clone(rule.Labels)
	labels["namespace"], labels["job"] = "graft-system", "graft-descheduler-metrics"
	test := map[string]any{
		"rule_files":          []string{"rules.yaml"},
		"evaluation_interval": "1m",
		"tests": []any{map[string]any{
			"interval": "1m",
			"input_series": []any{map[string]any{
				"series": `graft_descheduler_migrations_stuck{job="graft-descheduler-metrics", namespace="graft-system", instance="leader"}`,
				"values": value + "x10",
			}},
			"alert_rule_test": []any{map[string]any{
				"eval_time": "6m", "alertname": "GraftMoveStuck",
				"exp_alerts": []any{map[string]any{"exp_labels": labels, "exp_annotations": annotations}},
			}},
		}},
	}
	dir := t.TempDir()
	data, err := yaml.Marshal(test)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "rules.yaml"), rules, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "test.yaml"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, tool, "test", "rules", "test.yaml")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("GraftMoveStuck does not fire on the descheduler's stuck count %s: %v\n%s", value, err, out)
	}
}
