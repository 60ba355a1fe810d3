//go:build e2e

package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/algorithm"
	"github.com/graft-dev/graft/pkg/coretest"
	"github.com/graft-dev/graft/test/charts"
	"github.com/graft-dev/graft/test/e2e/landscapegen"
)

var _ = Describe("Scenario 7: bad input", func() {
	// Each binary the suite runs must refuse a bad config file at start with
	// a non-zero exit and a message naming every invalid field.
	var names []string
	for _, sc := range suiteComponents {
		if !slices.Contains(names, sc.chart) {
			names = append(names, sc.chart)
		}
	}
	for _, chart := range names {
		It("stops "+chart+" at start on an invalid config file, naming every invalid field", func(ctx SpecContext) {
			path := renderConfig(ctx, chart, "config.clientConnection.burst=-1", "config.logging.format=xml", "config.leaderElection.resourceLock=endpoints")
			code, out := runToExit(ctx, chart, path)
			Expect(code).NotTo(BeZero(), "output:\n%s", out)
			Expect(out).To(ContainSubstring("clientConnection.burst"))
			Expect(out).To(ContainSubstring("logging.format"))
			Expect(out).To(ContainSubstring("leaderElection.resourceLock"))
		}, SpecTimeout(time.Minute))

		It("stops "+chart+" at start on an unknown field, naming it", func(ctx SpecContext) {
			path := renderConfig(ctx, chart, "config.notAField=1")
			code, out := runToExit(ctx, chart, path)
			Expect(code).NotTo(BeZero(), "output:\n%s", out)
			Expect(out).To(ContainSubstring("notAField"))
		}, SpecTimeout(time.Minute))
	}
})

var _ = Describe("Scenario 7: bad input while running", processLabel, Ordered, func() {
	// A second scheduler, answering to its own name with the MinimalDistance
	// strategy (which reads region ConfigMaps), installed as its own release.
	const schedulerName = "distance-scheduler"
	l := landscapegen.Generate(landscapegen.Spec{Scenario: "s7", Providers: []string{"aws"}, RegionsPerProvider: 2, SeedsPerRegion: 2, SeedCapacity: 20})
	ns := l.Namespace.Name
	region1, region2 := landscapegen.Region("aws", 0), landscapegen.Region("aws", 1)
	var distance *component

	BeforeAll(func(ctx SpecContext) {
		Expect(createLandscape(ctx, l)).To(Succeed())
		registerScheduler(schedulerName, algorithm.Config{Strategy: algorithm.StrategyMinimalDistance})
		var err error
		distance, err = startComponent(ctx, env, bins, "graft-scheduler", 0, componentOptions{
			Release: "graft-distance-scheduler",
			Set: []string{
				"config.schedulerName=" + schedulerName, "config.strategy=MinimalDistance",
				"config.leaderElection.resourceName=graft-distance-scheduler", "replicaCount=1",
			},
		})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() {
			Expect(distance.Running()).To(BeTrue(), "the second scheduler exited:\n%s", distance.Logs())
			Expect(distance.LogContains(" is forbidden: ")).To(BeFalse(), "refused by RBAC:\n%s", distance.Logs())
			distance.Stop()
			_ = os.RemoveAll(distance.Dir)
		})
	})

	shoot := func(name, region string) *corev1alpha1.Shoot {
		s := landscapegen.Shoot(l.Spec, name, "aws", region, corev1alpha1.ShootPurposeProduction, false)
		s.Spec.SchedulerName = ptr.To(schedulerName)
		return s
	}

	pendingWithEvent := func(ctx context.Context, name string, messageParts ...string) {
		GinkgoHelper()
		Eventually(func(g Gomega) {
			s, err := graft.CoreV1alpha1().Shoots(ns).Get(ctx, name, metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(s.Spec.SeedName).To(BeNil())
			g.Expect(s.Status.LastOperation).NotTo(BeNil())
			g.Expect(s.Status.LastOperation.State).To(Equal(corev1alpha1.LastOperationStatePending))
			evs, err := events(ctx, ns)
			g.Expect(err).NotTo(HaveOccurred())
			for _, part := range messageParts {
				g.Expect(s.Status.LastOperation.Description).To(ContainSubstring(part))
				g.Expect(hasEvent(evs[name], corev1.EventTypeWarning, "SchedulingFailed", part)).To(BeTrue(), "events of %s: %v", name, evs[name])
			}
		}).WithContext(ctx).WithTimeout(time.Minute).WithPolling(time.Second).Should(Succeed())
	}

	It("fails only the shoots whose region entry in a malformed region ConfigMap is broken, saying which", func(ctx SpecContext) {
		cm := coretest.RegionConfigMap(corev1alpha1.GardenNamespace, "s7-regions", l.CloudProfiles[0].Name, map[string]string{
			region1: region2 + ": 10\n",
			region2: "{ this is: [not a map",
		})
		_, err := env.KubeClient().CoreV1().ConfigMaps(cm.Namespace).Create(ctx, cm, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())

		By("waiting for a decision that only a scheduler that has the ConfigMap can make")
		// A probe shoot in the broken region is either placed (the scheduler
		// has not seen the ConfigMap yet, which is allowed: it is deleted and
		// another one tried) or fails naming the ConfigMap. From the first
		// such failure on, the scheduler decides with the ConfigMap.
		for i := 0; ; i++ {
			Expect(i).To(BeNumerically("<", 30), "the scheduler never decided with the ConfigMap")
			probe := shoot(fmt.Sprintf("s7-probe-%d", i), region2)
			Expect(createShoots(ctx, []*corev1alpha1.Shoot{probe})).To(Succeed())
			var placedOn string
			Eventually(func(g Gomega) {
				s, err := graft.CoreV1alpha1().Shoots(ns).Get(ctx, probe.Name, metav1.GetOptions{})
				g.Expect(err).NotTo(HaveOccurred())
				if placedOn = ptr.Deref(s.Spec.SeedName, ""); placedOn != "" {
					return
				}
				g.Expect(s.Status.LastOperation).NotTo(BeNil())
				g.Expect(s.Status.LastOperation.Description).To(ContainSubstring("s7-regions"))
			}).WithContext(ctx).WithTimeout(time.Minute).WithPolling(250 * time.Millisecond).Should(Succeed())
			if placedOn == "" {
				GinkgoWriter.Printf("probe %s failed naming the ConfigMap\n", probe.Name)
				break
			}
			GinkgoWriter.Printf("probe %s was placed on %s before the scheduler had the ConfigMap; trying another\n", probe.Name, placedOn)
			Expect(graft.CoreV1alpha1().Shoots(ns).Delete(ctx, probe.Name, metav1.DeleteOptions{})).To(Succeed())
		}

		By("creating shoots in the broken and in a good region")
		Expect(createShoots(ctx, []*corev1alpha1.Shoot{shoot("s7-good", region1), shoot("s7-bad-region", region2)})).To(Succeed())
		pendingWithEvent(ctx, "s7-bad-region", "s7-regions")
		Eventually(func(g Gomega) {
			g.Expect(seedOf(ctx, ns, "s7-good")).To(HavePrefix("s7-" + region1))
		}).WithContext(ctx).WithTimeout(time.Minute).WithPolling(time.Second).Should(Succeed())
	}, SpecTimeout(5*time.Minute))

	It("fails a shoot with an invalid seedSelector with an Event, and keeps scheduling the others", func(ctx SpecContext) {
		bad := shoot("s7-bad-selector", region1)
		bad.Spec.SeedSelector = &corev1alpha1.SeedSelector{LabelSelector: metav1.LabelSelector{
			MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: "Bogus", Values: []string{"x"}}},
		}}
		Expect(createShoots(ctx, []*corev1alpha1.Shoot{bad})).To(Succeed())
		pendingWithEvent(ctx, bad.Name, "Bogus")
		// Created after the failure was reported: the scheduler goes on.
		after := shoot("s7-after", region1)
		Expect(createShoots(ctx, []*corev1alpha1.Shoot{after})).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(seedOf(ctx, ns, after.Name)).To(HavePrefix("s7-" + region1))
		}).WithContext(ctx).WithTimeout(time.Minute).WithPolling(time.Second).Should(Succeed())
	}, SpecTimeout(3*time.Minute))
})

// renderConfig renders a chart's component config with extra values and
// writes it to a file.
func renderConfig(ctx context.Context, chart string, set ...string) string {
	GinkgoHelper()
	objs, err := charts.Template(ctx, chart, charts.TemplateOptions{Release: chart, Namespace: componentNamespace, Set: set})
	Expect(err).NotTo(HaveOccurred())
	for _, o := range objs {
		if o.GetKind() == "ConfigMap" {
			data, _, _ := unstructured.NestedString(o.Object, "data", "config.yaml")
			path := filepath.Join(GinkgoT().TempDir(), "config.yaml")
			Expect(os.WriteFile(path, []byte(data), 0o600)).To(Succeed())
			return path
		}
	}
	Fail("chart " + chart + " rendered no ConfigMap")
	return ""
}

// runToExit runs a binary with a config file and returns its exit code and output.
func runToExit(ctx context.Context, chart, configPath string) (int, string) {
	GinkgoHelper()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bins.path(chart), "--config", configPath).CombinedOutput()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), string(out)
	}
	Expect(err).NotTo(HaveOccurred(), "running %s", chart)
	return 0, string(out)
}
