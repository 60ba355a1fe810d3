//go:build e2e

package e2e

import (
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/algorithm"
	"github.com/graft-dev/graft/test/e2e/landscapegen"
	"github.com/graft-dev/graft/test/invariant"
)

var _ = Describe("Scenario 1: a landscape of 30 seeds across 3 providers and 300 shoots", Ordered, func() {
	// 3 providers x 2 regions x 5 seeds of 9 shoots: 90 slots per provider
	// for 98 shoots each, so at least 8 per provider must wait for capacity;
	// every seventh shoot needs 3 zones, which every third seed lacks; and 6
	// shoots ask for a region without seeds.
	l := landscapegen.Generate(landscapegen.Spec{
		Scenario: "s1", Providers: []string{"aws", "gcp", "azure"}, RegionsPerProvider: 2, SeedsPerRegion: 5,
		SeedCapacity: 9, Shoots: 294, SeedlessRegionShoots: 6,
	})
	ns := l.Namespace.Name

	It("places every shoot where the algorithm allows, none above capacity, the rest Pending with the reason", func(ctx SpecContext) {
		Expect(l.Seeds).To(HaveLen(30))
		Expect(l.Shoots).To(HaveLen(300))
		By("applying the landscape")
		start := time.Now()
		Expect(createLandscape(ctx, l)).To(Succeed())

		By("waiting until every shoot has a seed or, when none fits, a Pending lastOperation")
		// Settled means the invariants hold: shoots created in the same
		// instant as their cloud profile may first be reported Pending and
		// must then be placed.
		checkAll := func(g Gomega) {
			s, err := state(ctx, l.Selector(), ns)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(s.Shoots).To(HaveLen(300))
			pending, _ := invariant.CheckPending(s)
			g.Expect(violationStrings(pending)).To(BeEmpty())
			placed, _ := invariant.Check(s, nil)
			g.Expect(violationStrings(placed)).To(BeEmpty())
		}
		Eventually(checkAll).WithContext(ctx).WithTimeout(3 * time.Minute).WithPolling(time.Second).Should(Succeed())
		GinkgoWriter.Printf("scenario 1 settled in %s\n", time.Since(start).Round(time.Second))

		By("checking that it stays settled")
		// The unschedulable shoots are retried with backoff and whenever a
		// seed changes (the annotator writes usage): the state must stay valid
		// and complete throughout.
		Consistently(checkAll).WithContext(ctx).WithTimeout(6 * time.Second).WithPolling(2 * time.Second).Should(Succeed())

		s, err := state(ctx, l.Selector(), ns)
		Expect(err).NotTo(HaveOccurred())
		bound, pending := 0, 0
		for _, shoot := range s.Shoots {
			key := algorithm.ShootKey(shoot)
			// Created without a seed (generation 1), bound once (2).
			if shoot.Spec.SeedName != nil {
				bound++
				Expect(shoot.Generation).To(Equal(int64(2)), "shoot %s: spec changed %d times", key, shoot.Generation-1)
				continue
			}
			pending++
			Expect(shoot.Generation).To(Equal(int64(1)), "pending shoot %s: spec changed", key)
			Expect(shoot.Status.LastOperation.Type).To(Equal(corev1alpha1.LastOperationTypeCreate), "pending shoot %s", key)
			if strings.Contains(shoot.Name, "-lost-") {
				Expect(s.Explain(shoot).Err).To(HaveOccurred(), "shoot %s in a region without seeds", key)
			}
		}
		GinkgoWriter.Printf("scenario 1: %d shoots bound, %d pending\n", bound, pending)
		Expect(bound + pending).To(Equal(300))
		Expect(bound).To(BeNumerically("<=", 270), "30 seeds of 9 shoots")
		Expect(pending).To(BeNumerically(">=", 30), "6 without seeds in their region and 8 per provider beyond capacity")
		for _, seed := range s.Seeds {
			alloc := seed.Status.Allocatable[corev1alpha1.ResourceShoots]
			Expect(alloc.Value()).To(Equal(int64(9)), "status.allocatable.shoots of seed %s", seed.Name)
		}

		By("checking the Events a user sees")
		Eventually(func(g Gomega) {
			evs, err := events(ctx, ns)
			g.Expect(err).NotTo(HaveOccurred())
			for _, shoot := range s.Shoots {
				if shoot.Spec.SeedName != nil {
					g.Expect(hasEvent(evs[shoot.Name], corev1.EventTypeNormal, "Scheduled", *shoot.Spec.SeedName)).To(BeTrue(),
						"shoot %s has no Scheduled event naming seed %s: %v", shoot.Name, *shoot.Spec.SeedName, evs[shoot.Name])
				} else {
					// The algorithm's short reason: "0/N seeds fit: <why> (count), ...".
					g.Expect(hasEvent(evs[shoot.Name], corev1.EventTypeWarning, "SchedulingFailed", "seeds fit")).To(BeTrue(),
						"pending shoot %s has no SchedulingFailed event: %v", shoot.Name, evs[shoot.Name])
				}
			}
		}).WithContext(ctx).WithTimeout(30 * time.Second).WithPolling(time.Second).Should(Succeed())

		By("checking the usage graft-capacity-annotator publishes")
		Eventually(func(g Gomega) {
			s, err := state(ctx, l.Selector(), ns)
			g.Expect(err).NotTo(HaveOccurred())
			counted := map[string]int64{}
			for _, shoot := range s.Shoots {
				for _, name := range algorithm.SeedNamesCountedFor(shoot) {
					counted[name]++
				}
			}
			for _, seed := range s.Seeds {
				usage := seed.Status.Usage[corev1alpha1.ResourceShoots]
				g.Expect(usage.Value()).To(Equal(counted[seed.Name]), fmt.Sprintf("status.usage.shoots of seed %s", seed.Name))
			}
		}).WithContext(ctx).WithTimeout(30 * time.Second).WithPolling(time.Second).Should(Succeed())
	}, SpecTimeout(6*time.Minute))
})
