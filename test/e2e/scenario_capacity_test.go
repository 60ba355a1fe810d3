//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/test/e2e/landscapegen"
	"github.com/graft-dev/graft/test/framework"
	"github.com/graft-dev/graft/test/invariant"
)

var _ = Describe("Scenario 4: capacity", Ordered, func() {
	l := landscapegen.Generate(landscapegen.Spec{
		Scenario: "s4", Providers: []string{"aws"}, RegionsPerProvider: 1, SeedsPerRegion: 3, SeedCapacity: 10,
	})
	ns := l.Namespace.Name
	full, garbage := l.Seeds[0].Name, l.Seeds[1].Name
	// Six shoots created on the first seed (the scheduler leaves pre-bound
	// shoots alone): two evaluation shoots, the lowest value, and four
	// production shoots.
	var evaluation, production []*corev1alpha1.Shoot
	for i := 0; i < 6; i++ {
		purpose, list := corev1alpha1.ShootPurposeProduction, &production
		if i < 2 {
			purpose, list = corev1alpha1.ShootPurposeEvaluation, &evaluation
		}
		shoot := landscapegen.Shoot(l.Spec, fmt.Sprintf("s4-%s-%d", purpose, i), "aws", landscapegen.Region("aws", 0), purpose, false)
		shoot.Spec.SeedName = ptr.To(full)
		*list = append(*list, shoot)
	}

	BeforeAll(func(ctx SpecContext) {
		Expect(createLandscape(ctx, l)).To(Succeed())
		Expect(createShoots(ctx, append(append([]*corev1alpha1.Shoot{}, evaluation...), production...))).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(shootsOn(g, ctx, full)).To(Equal(int64(6)))
		}).WithContext(ctx).WithTimeout(30 * time.Second).WithPolling(time.Second).Should(Succeed())
	})

	It("updates allocatable when a seed's capacity annotation is lowered, and with OverCapacity on exactly the excess moves", func(ctx SpecContext) {
		setAnnotation(ctx, full, corev1alpha1.AnnotationCapacityShoots, "4")
		Eventually(func(g Gomega) {
			seed, err := graft.CoreV1alpha1().Seeds().Get(ctx, full, metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			alloc := seed.Status.Allocatable[corev1alpha1.ResourceShoots]
			g.Expect(alloc.Value()).To(Equal(int64(4)))
			evs, err := seedEvents(ctx, full)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(hasEvent(evs, corev1.EventTypeNormal, "AllocatableChanged", "")).To(BeTrue(), "events %v", evs)
			g.Expect(hasEvent(evs, corev1.EventTypeWarning, "OverCapacity", "")).To(BeTrue(), "events %v", evs)
		}).WithContext(ctx).WithTimeout(30 * time.Second).WithPolling(time.Second).Should(Succeed())

		By("the descheduler moves the two lowest-value shoots, and only them")
		Eventually(func(g Gomega) {
			for _, shoot := range evaluation {
				seed, err := seedOf(ctx, ns, shoot.Name)
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(seed).NotTo(Or(BeEmpty(), Equal(full)), "evaluation shoot %s", shoot.Name)
			}
		}).WithContext(ctx).WithTimeout(time.Minute).WithPolling(time.Second).Should(Succeed())
		// Two more whole passes of the descheduler, begun after the excess
		// left, must not move more.
		passes := deschedulerPasses(ctx)
		Eventually(func(g Gomega) {
			g.Expect(deschedulerPassesG(g, ctx)).To(BeNumerically(">=", passes+2))
		}).WithContext(ctx).WithTimeout(time.Minute).WithPolling(time.Second).Should(Succeed())
		for _, shoot := range production {
			Expect(seedOf(ctx, ns, shoot.Name)).To(Equal(full), "production shoot %s", shoot.Name)
		}
		gen := generations(ctx, ns)
		for _, shoot := range evaluation {
			Expect(gen[shoot.Name]).To(Equal(int64(3)), "evaluation shoot %s: evicted and bound once each", shoot.Name)
		}
		for _, shoot := range production {
			Expect(gen[shoot.Name]).To(Equal(int64(1)), "production shoot %s: never moved", shoot.Name)
		}
		Eventually(func(g Gomega) {
			g.Expect(shootsOn(g, ctx, full)).To(Equal(int64(4)))
		}).WithContext(ctx).WithTimeout(30 * time.Second).WithPolling(time.Second).Should(Succeed())
		settledClean(ctx, l)
	}, SpecTimeout(3*time.Minute))

	It("keeps a seed's last good values and warns when its capacity annotation is garbage (scenario 7)", func(ctx SpecContext) {
		before, err := graft.CoreV1alpha1().Seeds().Get(ctx, garbage, metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		setAnnotation(ctx, garbage, corev1alpha1.AnnotationCapacityShoots, "lots")
		// Each new garbage value is reported once; the second report shows
		// the annotator is done with the first value (one seed is never
		// reconciled twice at once).
		for _, value := range []string{"lots", "heaps"} {
			if value != "lots" {
				setAnnotation(ctx, garbage, corev1alpha1.AnnotationCapacityShoots, value)
			}
			Eventually(func(g Gomega) {
				evs, err := seedEvents(ctx, garbage)
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(hasEvent(evs, corev1.EventTypeWarning, "InvalidCapacityAnnotation", value)).To(BeTrue(), "events %v", evs)
			}).WithContext(ctx).WithTimeout(time.Minute).WithPolling(time.Second).Should(Succeed())
		}
		// Every state of the seed since, as the monitor's watch saw it.
		flush(ctx)
		states := monitor.History(invariant.KindSeed, garbage, before.ResourceVersion)
		Expect(states).NotTo(BeEmpty())
		for _, o := range states {
			seed := o.(*corev1alpha1.Seed)
			alloc := seed.Status.Allocatable[corev1alpha1.ResourceShoots]
			Expect(alloc.Value()).To(Equal(int64(10)), "seed %s at resourceVersion %s", garbage, seed.ResourceVersion)
		}

		By("other seeds still follow their annotations")
		other := l.Seeds[2].Name
		setAnnotation(ctx, other, corev1alpha1.AnnotationCapacityShoots, "7")
		Eventually(func(g Gomega) {
			seed, err := graft.CoreV1alpha1().Seeds().Get(ctx, other, metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			alloc := seed.Status.Allocatable[corev1alpha1.ResourceShoots]
			g.Expect(alloc.Value()).To(Equal(int64(7)))
		}).WithContext(ctx).WithTimeout(30 * time.Second).WithPolling(time.Second).Should(Succeed())
	}, SpecTimeout(3*time.Minute))
})

// shootsOn returns a seed's status.usage.shoots.
func shootsOn(g Gomega, ctx context.Context, seedName string) int64 {
	seed, err := graft.CoreV1alpha1().Seeds().Get(ctx, seedName, metav1.GetOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	usage := seed.Status.Usage[corev1alpha1.ResourceShoots]
	return usage.Value()
}

func setAnnotation(ctx context.Context, seedName, key, value string) {
	GinkgoHelper()
	patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, key, value)
	_, err := graft.CoreV1alpha1().Seeds().Patch(ctx, seedName, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
	Expect(err).NotTo(HaveOccurred())
}

// seedEvents returns the Events about a seed, in whatever namespace the
// recorder put them (cluster-scoped objects get theirs in "default").
func seedEvents(ctx context.Context, seedName string) ([]corev1.Event, error) {
	list, err := env.KubeClient().CoreV1().Events("").List(ctx, metav1.ListOptions{
		FieldSelector: "involvedObject.kind=Seed,involvedObject.name=" + seedName,
	})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

// deschedulerPasses returns how many passes graft-descheduler has finished.
func deschedulerPasses(ctx context.Context) float64 {
	GinkgoHelper()
	return deschedulerPassesG(Default, ctx)
}

func deschedulerPassesG(g Gomega, ctx context.Context) float64 {
	const passes = "graft_descheduler_pass_duration_seconds_count"
	var v float64
	var err error
	if podsMode {
		v, err = leaderMetric(ctx, "graft-descheduler", passes)
	} else {
		v, err = metricValue(ctx, running["graft-descheduler-0"], passes)
	}
	g.Expect(err).NotTo(HaveOccurred())
	return v
}

// metricValue reads one sample without labels from a component's /metrics.
func metricValue(ctx context.Context, c *component, name string) (float64, error) {
	body, err := framework.ScrapeMetrics(ctx, "http://"+c.MetricsAddr+"/metrics")
	if err != nil {
		return 0, err
	}
	return framework.MetricSample(body, c.Name, name)
}
