//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	graftclient "github.com/graft-dev/client-go/clientset/versioned"
	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/algorithm"
	"github.com/graft-dev/graft/test/e2e/landscapegen"
	"github.com/graft-dev/graft/test/framework"
	"github.com/graft-dev/graft/test/invariant"
)

func TestMain(m *testing.M) {
	framework.MainWithOptions(m, framework.Options{UseKubeconfig: true})
}

func TestE2E(t *testing.T) {
	env = framework.Shared(t)
	RegisterFailHandler(Fail)
	RunSpecs(t, "graft end-to-end")
}

var (
	env     *framework.Env
	bins    *binaries
	graft   graftclient.Interface
	monitor *invariant.Monitor
	// running are the components started for the whole suite, by name.
	running = map[string]*component{}
)

var _ = BeforeSuite(func(ctx SpecContext) {
	graft = env.GraftClient()
	kube := env.KubeClient()
	Expect(ensureNamespace(ctx, kube, componentNamespace)).To(Succeed())
	Expect(ensureNamespace(ctx, kube, corev1alpha1.GardenNamespace)).To(Succeed())

	dir, err := os.MkdirTemp("", "graft-e2e-bin-")
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(os.RemoveAll, dir)
	By("building the binaries")
	var names []string
	for _, sc := range suiteComponents {
		names = append(names, sc.chart)
	}
	bins, err = buildBinaries(ctx, dir, append(slices.Compact(names), "graftctl")...)
	Expect(err).NotTo(HaveOccurred())

	By("following every shoot, seed, cloud profile and region ConfigMap for the invariants")
	Expect(startMonitor(ctx)).To(Succeed())

	if podsMode {
		By("installing graft's charts, the components running as pods")
		Expect(installPods(ctx, nil)).To(Succeed())
		return
	}
	By("starting the components as their charts' ServiceAccounts")
	for _, sc := range suiteComponents {
		c, err := startComponent(ctx, env, bins, sc.chart, sc.instance, componentOptions{Set: sc.set, SetJSON: sc.setJSON})
		Expect(err).NotTo(HaveOccurred())
		running[c.Name] = c
	}
}, NodeTimeout(10*time.Minute))

// suiteComponents run for the whole suite, as in a garden: two scheduler
// replicas (one leads, one stands by), the capacity annotator (forecasting,
// for the dashboard's forecast panels) and the
// descheduler. The descheduler keeps its safety checks but passes more often
// and evicts faster than its defaults, so that drains finish in seconds, and
// runs the OverCapacity plugin too (scenario 4).
var suiteComponents = []struct {
	chart    string
	instance int
	set      []string
	setJSON  []string
}{
	{chart: "graft-scheduler", instance: 0, set: lease},
	{chart: "graft-scheduler", instance: 1, set: lease},
	{chart: "graft-capacity-annotator", instance: 0, set: append(slices.Clone(lease), "config.forecast.enabled=true", "config.forecast.period=2s")},
	{chart: "graft-descheduler", instance: 0, set: append(slices.Clone(lease), descheduler...), setJSON: []string{
		`config.plugins=[{"name":"NoExecuteTaints","enabled":true},{"name":"OverCapacity","enabled":true}]`,
	}},
}

// lease lets a leader keep its Lease through an API server restart (scenario
// 6: stopping and starting kube-apiserver takes 10 to 25 seconds here, more
// than the default renewDeadline of 10s); a lost Lease ends the process, which
// that scenario forbids. A standby takes over within 45s (scenario 5).
var lease = []string{"config.leaderElection.leaseDuration=45s", "config.leaderElection.renewDeadline=40s",
	// Every binding and eviction in the logs, for a look after a failure.
	"config.logging.verbosity=2"}

// The scenarios' shoots are one project each: its budget of moves in flight
// would queue every evacuation they time (the integration tests judge it).
var descheduler = []string{
	"config.interval=5s", "config.evictionRate=20", "config.evictionBurst=10",
	"config.maxEvictionsPerSeed=50", "config.maxEvictionsTotal=200", "config.maxPendingEvicted=50",
	"config.maxMovesInFlightPerProject=0",
}

// restart replaces a suite component that a scenario stopped or killed.
func restart(ctx context.Context, name string) {
	GinkgoHelper()
	old := running[name]
	for _, sc := range suiteComponents {
		if sc.chart == old.Chart && fmt.Sprintf("%s-%d", sc.chart, sc.instance) == name {
			old.Stop()
			retired = append(retired, old)
			c, err := startComponent(ctx, env, bins, sc.chart, sc.instance, componentOptions{Set: sc.set, SetJSON: sc.setJSON})
			Expect(err).NotTo(HaveOccurred())
			running[name] = c
			return
		}
	}
	Fail("no suite component " + name)
}

var _ = AfterSuite(func(ctx SpecContext) {
	defer stopComponents()
	defer func() {
		if CurrentSpecReport().Failed() || monitor != nil && len(monitor.Violations()) > 0 {
			suiteFailed = true
			if podsMode {
				fmt.Fprint(GinkgoWriter, podLogs(ctx))
			}
			for _, c := range running {
				fmt.Fprintf(GinkgoWriter, "\n===== %s (running %v) =====\n%s\n", c.Name, c.Running(), c.Logs())
			}
		}
	}()
	finalCheck(ctx)
}, NodeTimeout(10*time.Minute))

// stopComponents stops the suite's components and removes their
// directories, unless something failed.
func stopComponents() {
	for _, c := range retired {
		if suiteFailed {
			fmt.Fprintf(GinkgoWriter, "kept %s: the whole log of a stopped %s\n", c.Dir, c.Name)
			continue
		}
		_ = os.RemoveAll(c.Dir)
	}
	for _, c := range running {
		c.Stop()
		if suiteFailed {
			fmt.Fprintf(GinkgoWriter, "kept %s: config, kubeconfig and the whole log of %s\n", c.Dir, c.Name)
			continue
		}
		_ = os.RemoveAll(c.Dir)
	}
}

// landscapes are the scenarios' landscapes, for the final check.
var landscapes []*landscapegen.Landscape

// schedulerConfigs are how the schedulers the suite runs decide, by
// schedulerName, for the invariant checks.
var schedulerConfigs = map[string]algorithm.Config{
	corev1alpha1.DefaultSchedulerName: {Strategy: algorithm.StrategySameRegion},
}

// registerScheduler tells the invariant checks about a scheduler a scenario starts.
func registerScheduler(name string, cfg algorithm.Config) {
	schedulerConfigs[name] = cfg
	monitor.SetScheduler(name, cfg)
}

// retired are components a scenario stopped and replaced.
var retired []*component

// suiteFailed keeps the components' directories for a look at their logs.
var suiteFailed bool

// After a failed spec, show what the components said.
var _ = ReportAfterEach(func(ctx SpecContext, report SpecReport) {
	if !report.Failed() {
		return
	}
	suiteFailed = true
	if podsMode {
		fmt.Fprint(GinkgoWriter, podLogs(ctx))
	}
	for _, c := range running {
		fmt.Fprintf(GinkgoWriter, "\n===== %s (running %v) =====\n%s\n", c.Name, c.Running(), c.Logs())
	}
})

// AfterEach spec, every suite-wide component must still run (none may crash
// or exit on what a scenario did) and none may have been refused anything by
// RBAC, even where a spec does not look at the result (an Event, say).
var _ = AfterEach(func(ctx SpecContext) {
	if podsMode {
		checkPods(ctx)
	}
	for _, c := range running {
		Expect(c.Running()).To(BeTrue(), "%s exited: %v\n%s", c.Name, c.exitErr(), c.Logs())
		Expect(c.LogContains(" is forbidden: ")).To(BeFalse(), "%s was refused by RBAC:\n%s", c.Name, c.Logs())
		if !podsMode {
			// Every request counts here, also those whose error no log line
			// carries (a read retried after a conflict, say).
			Expect(forbiddenRequests(ctx, c)-c.forgiven).To(BeZero(), "%s was answered 403 Forbidden (rest_client_requests_total{code=\"403\"}): its chart's RBAC or an admission policy refuses a request it sends\n%s", c.Name, c.Logs())
		}
	}
})

// forbiddenRequests is how many of the component's API requests were
// answered 403 since it started (rest_client_requests_total counts them all,
// those retried or never logged too).
func forbiddenRequests(ctx context.Context, c *component) float64 {
	GinkgoHelper()
	body, err := framework.ScrapeMetrics(ctx, "http://"+c.MetricsAddr+"/metrics")
	Expect(err).NotTo(HaveOccurred())
	n, err := framework.MetricSum(body, c.Name, "rest_client_requests_total", map[string]string{"code": "403"})
	Expect(err).NotTo(HaveOccurred())
	return n
}

// generations returns the metadata.generation of a namespace's shoots by
// name. A shoot's generation counts its spec changes exactly, so it says how
// often a shoot was bound and evicted even where a watch missed events:
// created without a seed it is 1, each binding and each eviction adds one.
func generations(ctx context.Context, namespace string) map[string]int64 {
	GinkgoHelper()
	list, err := graft.CoreV1alpha1().Shoots(namespace).List(ctx, metav1.ListOptions{})
	Expect(err).NotTo(HaveOccurred())
	out := map[string]int64{}
	for _, shoot := range list.Items {
		out[shoot.Name] = shoot.Generation
	}
	return out
}

// state lists a scenario's objects for the invariant checker.
func state(ctx context.Context, scenarioSelector, namespace string) (invariant.Landscape, error) {
	var l invariant.Landscape
	seeds, err := graft.CoreV1alpha1().Seeds().List(ctx, metav1.ListOptions{LabelSelector: scenarioSelector})
	if err != nil {
		return l, err
	}
	shoots, err := graft.CoreV1alpha1().Shoots(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return l, err
	}
	profiles, err := graft.CoreV1alpha1().CloudProfiles().List(ctx, metav1.ListOptions{LabelSelector: scenarioSelector})
	if err != nil {
		return l, err
	}
	cms, err := env.KubeClient().CoreV1().ConfigMaps(corev1alpha1.GardenNamespace).List(ctx, metav1.ListOptions{
		LabelSelector: corev1alpha1.LabelSchedulingPurpose + "=" + corev1alpha1.LabelSchedulingPurposeRegionConfig,
	})
	if err != nil {
		return l, err
	}
	for i := range seeds.Items {
		l.Seeds = append(l.Seeds, &seeds.Items[i])
	}
	for i := range shoots.Items {
		l.Shoots = append(l.Shoots, &shoots.Items[i])
	}
	for i := range profiles.Items {
		l.CloudProfiles = append(l.CloudProfiles, &profiles.Items[i])
	}
	for i := range cms.Items {
		l.ConfigMaps = append(l.ConfigMaps, &cms.Items[i])
	}
	l.Schedulers = schedulerConfigs
	return l, nil
}

// events returns the namespace's Events by involved object name.
func events(ctx context.Context, namespace string) (map[string][]corev1.Event, error) {
	list, err := env.KubeClient().CoreV1().Events(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	out := map[string][]corev1.Event{}
	for _, e := range list.Items {
		out[e.InvolvedObject.Name] = append(out[e.InvolvedObject.Name], e)
	}
	return out, nil
}

func hasEvent(evs []corev1.Event, eventType, reason, messagePart string) bool {
	for _, e := range evs {
		if e.Type == eventType && e.Reason == reason && strings.Contains(e.Message, messagePart) {
			return true
		}
	}
	return false
}

func violationStrings(vs []invariant.Violation) []string {
	out := make([]string, 0, len(vs))
	for _, v := range vs {
		out = append(out, v.String())
	}
	return out
}

// createLandscape creates a landscape's objects with the admin client: the
// namespace, cloud profiles and seeds (their ready status written with a
// merge patch of the status subresource, which cannot conflict with the
// annotator's writes), then the shoots, several at a time.
func createLandscape(ctx context.Context, l *landscapegen.Landscape) error {
	if !slices.ContainsFunc(landscapes, func(o *landscapegen.Landscape) bool { return o.Spec.Scenario == l.Spec.Scenario }) {
		landscapes = append(landscapes, l)
	}
	if err := ensureNamespace(ctx, env.KubeClient(), l.Namespace.Name); err != nil {
		return err
	}
	for _, cp := range l.CloudProfiles {
		if _, err := graft.CoreV1alpha1().CloudProfiles().Create(ctx, cp.DeepCopy(), metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating cloud profile %s: %w", cp.Name, err)
		}
	}
	for _, seed := range l.Seeds {
		if _, err := graft.CoreV1alpha1().Seeds().Create(ctx, seed.DeepCopy(), metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating seed %s: %w", seed.Name, err)
		}
		status, err := json.Marshal(map[string]any{"status": seed.Status})
		if err != nil {
			return err
		}
		if _, err := graft.CoreV1alpha1().Seeds().Patch(ctx, seed.Name, types.MergePatchType, status, metav1.PatchOptions{}, "status"); err != nil {
			return fmt.Errorf("writing the status of seed %s: %w", seed.Name, err)
		}
	}
	return createShoots(ctx, l.Shoots)
}

// createShoots creates shoots with a few concurrent writers.
func createShoots(ctx context.Context, shoots []*corev1alpha1.Shoot) error {
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(8)
	for _, shoot := range shoots {
		g.Go(func() error {
			if _, err := graft.CoreV1alpha1().Shoots(shoot.Namespace).Create(ctx, shoot.DeepCopy(), metav1.CreateOptions{}); err != nil {
				return fmt.Errorf("creating shoot %s/%s: %w", shoot.Namespace, shoot.Name, err)
			}
			return nil
		})
	}
	return g.Wait()
}
