//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/test/e2e/landscapegen"
	"github.com/graft-dev/graft/test/invariant"
)

// boundShoots returns n shoots of the landscape created on seed, named
// prefix-i, with the given tolerations.
func boundShoots(l *landscapegen.Landscape, prefix, seed string, n int, tolerations ...corev1alpha1.Toleration) []*corev1alpha1.Shoot {
	var out []*corev1alpha1.Shoot
	for i := 0; i < n; i++ {
		shoot := landscapegen.Shoot(l.Spec, fmt.Sprintf("%s-%d", prefix, i), l.Seeds[0].Spec.Provider.Type, l.Seeds[0].Spec.Provider.Region, corev1alpha1.ShootPurposeProduction, false)
		shoot.Spec.SeedName = ptr.To(seed)
		shoot.Spec.Tolerations = tolerations
		out = append(out, shoot)
	}
	return out
}

// seedOf returns the shoot's spec.seedName ("" when unbound).
func seedOf(ctx context.Context, namespace, name string) (string, error) {
	shoot, err := graft.CoreV1alpha1().Shoots(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return "", err
	}
	return ptr.Deref(shoot.Spec.SeedName, ""), nil
}

// settledClean checks a scenario's invariants after it settled.
func settledClean(ctx context.Context, l *landscapegen.Landscape) {
	GinkgoHelper()
	s, err := state(ctx, l.Selector(), l.Namespace.Name)
	Expect(err).NotTo(HaveOccurred())
	seeds := map[string]*corev1alpha1.Seed{}
	for _, seed := range s.Seeds {
		seeds[seed.Name] = seed
	}
	placed, skips := invariant.Check(s, invariant.AllowNoScheduleTaints(seeds))
	Expect(violationStrings(placed)).To(BeEmpty())
	pending, pendingSkips := invariant.CheckPending(s)
	Expect(violationStrings(pending)).To(BeEmpty())
	for _, skip := range append(skips, pendingSkips...) {
		GinkgoWriter.Printf("settled state of %s: %s\n", l.Spec.Scenario, skip)
	}
	// And everything that happened on the way there.
	flush(ctx)
	Expect(violationStrings(monitor.Violations())).To(BeEmpty())
}

var _ = Describe("Scenario 2: graftctl taint seed X key=v:NoExecute", Ordered, func() {
	l := landscapegen.Generate(landscapegen.Spec{Scenario: "s2", Providers: []string{"aws"}, RegionsPerProvider: 1, SeedsPerRegion: 3, SeedCapacity: 20})
	ns, x := l.Namespace.Name, l.Seeds[0].Name
	const tolerationSeconds = 20
	untolerating := boundShoots(l, "s2-plain", x, 6)
	tolerating := boundShoots(l, "s2-forever", x, 3, corev1alpha1.Toleration{Key: "key", Value: ptr.To("v"), Effect: corev1alpha1.TaintEffectNoExecute})
	timed := boundShoots(l, "s2-timed", x, 2, corev1alpha1.Toleration{Key: "key", Value: ptr.To("v"), Effect: corev1alpha1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](tolerationSeconds)})

	It("moves the untolerating shoots, keeps the tolerating ones, and the timed ones for their tolerationSeconds", func(ctx SpecContext) {
		Expect(createLandscape(ctx, l)).To(Succeed())
		Expect(createShoots(ctx, append(append(append([]*corev1alpha1.Shoot{}, untolerating...), tolerating...), timed...))).To(Succeed())

		tainted := time.Now()
		out := mustGraftctl(ctx, "taint", "seed", x, "key=v:NoExecute")
		Expect(out).To(ContainSubstring(x))
		// A toleration runs out tolerationSeconds after the taint's stored
		// timeAdded (the shoots were on X before), which graftctl sets when
		// it adds the taint, to the second.
		seed, err := graft.CoreV1alpha1().Seeds().Get(ctx, x, metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		var added time.Time
		for _, taint := range seed.Spec.Taints {
			if taint.Key == "key" && taint.Effect == corev1alpha1.TaintEffectNoExecute {
				Expect(taint.TimeAdded).NotTo(BeNil(), "graftctl wrote the NoExecute taint without timeAdded")
				added = taint.TimeAdded.Time
			}
		}
		Expect(added).NotTo(BeZero(), "seed %s has no taint key=v:NoExecute: %v", x, seed.Spec.Taints)
		Expect(added).To(BeTemporally(">=", tainted.Truncate(time.Second)), "timeAdded before graftctl ran")
		Expect(added).To(BeTemporally("<=", time.Now()), "timeAdded in the future")

		By("the untolerating shoots move to other seeds")
		Eventually(func(g Gomega) {
			for _, shoot := range untolerating {
				seed, err := seedOf(ctx, ns, shoot.Name)
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(seed).NotTo(Or(BeEmpty(), Equal(x)), "shoot %s", shoot.Name)
			}
		}).WithContext(ctx).WithTimeout(time.Minute).WithPolling(time.Second).Should(Succeed())

		By("the timed shoots stay until their tolerationSeconds have passed, then move")
		movedAt := map[string]time.Time{}
		Eventually(func(g Gomega) {
			for _, shoot := range timed {
				seed, err := seedOf(ctx, ns, shoot.Name)
				g.Expect(err).NotTo(HaveOccurred())
				if seed != x {
					if _, ok := movedAt[shoot.Name]; !ok {
						movedAt[shoot.Name] = time.Now()
					}
				}
			}
			g.Expect(movedAt).To(HaveLen(len(timed)))
		}).WithContext(ctx).WithTimeout(tolerationSeconds*time.Second + time.Minute).WithPolling(250 * time.Millisecond).Should(Succeed())
		for name, at := range movedAt {
			Expect(at.Sub(added)).To(BeNumerically(">=", tolerationSeconds*time.Second), "shoot %s left %s after the taint's timeAdded %s", name, at.Sub(added), added)
		}
		Eventually(func(g Gomega) {
			for _, shoot := range timed {
				seed, err := seedOf(ctx, ns, shoot.Name)
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(seed).NotTo(Or(BeEmpty(), Equal(x)), "shoot %s", shoot.Name)
			}
		}).WithContext(ctx).WithTimeout(time.Minute).WithPolling(time.Second).Should(Succeed())

		By("the tolerating shoots never left; the others moved exactly once")
		gen := generations(ctx, ns)
		for _, shoot := range tolerating {
			Expect(seedOf(ctx, ns, shoot.Name)).To(Equal(x))
			Expect(gen[shoot.Name]).To(Equal(int64(1)), "tolerating shoot %s: spec changed", shoot.Name)
		}
		for _, shoot := range append(append([]*corev1alpha1.Shoot{}, untolerating...), timed...) {
			// Created on X (1), evicted (2), bound elsewhere (3).
			Expect(gen[shoot.Name]).To(Equal(int64(3)), "shoot %s: spec changed %d times", shoot.Name, gen[shoot.Name]-1)
		}

		By("the user sees Descheduled Events on the moved shoots and on the seed")
		Eventually(func(g Gomega) {
			evs, err := events(ctx, ns)
			g.Expect(err).NotTo(HaveOccurred())
			for _, shoot := range append(append([]*corev1alpha1.Shoot{}, untolerating...), timed...) {
				g.Expect(hasEvent(evs[shoot.Name], corev1.EventTypeNormal, "Descheduled", "")).To(BeTrue(), "shoot %s: %v", shoot.Name, evs[shoot.Name])
			}
			seedEvs, err := seedEvents(ctx, x)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(hasEvent(seedEvs, corev1.EventTypeNormal, "Descheduled", "")).To(BeTrue(), "seed %s: %v", x, seedEvs)
		}).WithContext(ctx).WithTimeout(30 * time.Second).WithPolling(time.Second).Should(Succeed())
		settledClean(ctx, l)
	}, SpecTimeout(4*time.Minute))
})

var _ = Describe("Scenario 3: graftctl drain X --timeout 2m, then graftctl uncordon X", Ordered, func() {
	l := landscapegen.Generate(landscapegen.Spec{Scenario: "s3", Providers: []string{"aws"}, RegionsPerProvider: 1, SeedsPerRegion: 3, SeedCapacity: 20})
	ns, x := l.Namespace.Name, l.Seeds[0].Name
	onX := boundShoots(l, "s3-shoot", x, 10)

	It("empties the seed with a progress line per shoot, and uncordon makes it schedulable again", func(ctx SpecContext) {
		Expect(createLandscape(ctx, l)).To(Succeed())
		Expect(createShoots(ctx, onX)).To(Succeed())

		out, errOut, err := graftctl(ctx, 3*time.Minute, "drain", x, "--timeout", "2m")
		Expect(err).NotTo(HaveOccurred(), "stdout:\n%s\nstderr:\n%s", out, errOut)
		GinkgoWriter.Printf("graftctl drain %s:\n%s", x, out)
		Expect(out).To(ContainSubstring("seed/" + x + " cordoned"))
		for _, shoot := range onX {
			Expect(out).To(MatchRegexp(`shoot/%s/%s moved to seed/\S+`, ns, shoot.Name))
		}
		Expect(out).To(ContainSubstring(fmt.Sprintf("%d/%d shoots moved", len(onX), len(onX))))

		s, err := state(ctx, l.Selector(), ns)
		Expect(err).NotTo(HaveOccurred())
		for _, shoot := range s.Shoots {
			Expect(ptr.Deref(shoot.Spec.SeedName, "")).NotTo(Or(BeEmpty(), Equal(x)), "shoot %s", shoot.Name)
			// Created on X (1), evicted (2), bound elsewhere (3).
			Expect(shoot.Generation).To(Equal(int64(3)), "shoot %s: spec changed %d times", shoot.Name, shoot.Generation-1)
		}
		settledClean(ctx, l)

		By("a shoot that only fits on the drained seed waits, then lands there after uncordon")
		label := fmt.Sprintf(`{"metadata":{"labels":{"e2e.graft.dev/seed":%q}}}`, x)
		_, err = graft.CoreV1alpha1().Seeds().Patch(ctx, x, types.MergePatchType, []byte(label), metav1.PatchOptions{})
		Expect(err).NotTo(HaveOccurred())
		only := landscapegen.Shoot(l.Spec, "s3-only-x", "aws", landscapegen.Region("aws", 0), corev1alpha1.ShootPurposeProduction, false)
		only.Spec.SeedSelector = &corev1alpha1.SeedSelector{LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{"e2e.graft.dev/seed": x}}}
		Expect(createShoots(ctx, []*corev1alpha1.Shoot{only})).To(Succeed())
		// Waiting because of the cordon: one seed, X, rejects it for its
		// taints, which only a scheduler that has seen the label on X can say
		// (without it X fails the seed selector like the other seeds).
		Eventually(func(g Gomega) {
			shoot, err := graft.CoreV1alpha1().Shoots(ns).Get(ctx, only.Name, metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(shoot.Spec.SeedName).To(BeNil())
			g.Expect(shoot.Status.LastOperation).NotTo(BeNil())
			g.Expect(shoot.Status.LastOperation.State).To(Equal(corev1alpha1.LastOperationStatePending))
			g.Expect(shoot.Status.LastOperation.Description).NotTo(BeEmpty())
			evs, err := events(ctx, ns)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(hasEvent(evs[only.Name], corev1.EventTypeWarning, "SchedulingFailed", "taints not tolerated (1)")).To(BeTrue(), "events of %s: %v", only.Name, evs[only.Name])
		}).WithContext(ctx).WithTimeout(time.Minute).WithPolling(time.Second).Should(Succeed())

		out = mustGraftctl(ctx, "uncordon", x)
		Expect(out).To(ContainSubstring(x))
		Eventually(func(g Gomega) {
			g.Expect(seedOf(ctx, ns, only.Name)).To(Equal(x))
		}).WithContext(ctx).WithTimeout(time.Minute).WithPolling(time.Second).Should(Succeed())
		seed, err := graft.CoreV1alpha1().Seeds().Get(ctx, x, metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		for _, taint := range seed.Spec.Taints {
			Expect(taint.Key).NotTo(Equal(corev1alpha1.SeedTaintUnschedulable))
		}
		Expect(strings.Count(out, "\n")).To(BeNumerically(">=", 1))
		settledClean(ctx, l)
	}, SpecTimeout(5*time.Minute))
})
