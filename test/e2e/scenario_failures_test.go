//go:build e2e

package e2e

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/graft-dev/graft/pkg/algorithm"
	"github.com/graft-dev/graft/test/e2e/landscape"
)

// boundCount counts the landscape's shoots that have a seed.
func boundCount(ctx context.Context, l *landscape.Landscape) (int, error) {
	list, err := graft.CoreV1alpha1().Shoots(l.Namespace.Name).List(ctx, metav1.ListOptions{ResourceVersion: "0"})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, shoot := range list.Items {
		if ptr.Deref(shoot.Spec.SeedName, "") != "" {
			n++
		}
	}
	return n, nil
}

// leadingScheduler returns the name of the scheduler replica that holds the
// Lease, from what each replica logged.
func leadingScheduler() string {
	GinkgoHelper()
	var leader string
	Eventually(func(g Gomega) {
		leader = ""
		for _, name := range []string{"graft-scheduler-0", "graft-scheduler-1"} {
			c := running[name]
			if c.Running() && c.LogContains("Acquired the lease") {
				g.Expect(leader).To(BeEmpty(), "two scheduler replicas say they lead")
				leader = name
			}
		}
		g.Expect(leader).NotTo(BeEmpty())
	}).WithTimeout(time.Minute).WithPolling(time.Second).Should(Succeed())
	return leader
}

// allBound waits until every shoot of the landscape has a seed, then checks
// that each was bound exactly once and the invariants hold.
func allBound(ctx context.Context, l *landscape.Landscape, timeout time.Duration) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		n, err := boundCount(ctx, l)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(n).To(Equal(len(l.Shoots)))
	}).WithContext(ctx).WithTimeout(timeout).WithPolling(2 * time.Second).Should(Succeed())
	settledClean(ctx, l)
	for _, shoot := range l.Shoots {
		key := algorithm.ShootKey(shoot)
		Expect(history.Binds(key)).To(Equal(1+history.Evictions(key)), "shoot %s: %d binds, %d evictions", key, history.Binds(key), history.Evictions(key))
	}
}

var _ = Describe("Scenario 5: leader failover under load", Ordered, func() {
	// 20 seeds of 120 shoots (2,400 slots) for 2,000 shoots.
	l := landscape.Generate(landscape.Spec{
		Scenario: "s5", Providers: []string{"aws"}, RegionsPerProvider: 2, SeedsPerRegion: 10, SeedCapacity: 120, Shoots: 2000,
	})

	It("lets the standby finish a 2,000-shoot burst when the leader is killed in the middle", func(ctx SpecContext) {
		leader := leadingScheduler()
		Expect(createLandscape(ctx, &landscape.Landscape{Spec: l.Spec, Namespace: l.Namespace, CloudProfiles: l.CloudProfiles, Seeds: l.Seeds})).To(Succeed())

		created := make(chan error, 1)
		go func() { created <- createShoots(ctx, l.Shoots) }()
		By("killing the leader " + leader + " once some shoots are bound")
		Eventually(func(g Gomega) {
			n, err := boundCount(ctx, l)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(n).To(BeNumerically(">=", 200))
		}).WithContext(ctx).WithTimeout(2 * time.Minute).WithPolling(500 * time.Millisecond).Should(Succeed())
		killedAt := time.Now()
		running[leader].Kill()
		n, err := boundCount(ctx, l)
		Expect(err).NotTo(HaveOccurred())
		GinkgoWriter.Printf("killed %s with %d of %d shoots bound\n", leader, n, len(l.Shoots))
		Expect(n).To(BeNumerically("<", len(l.Shoots)), "the burst was over before the leader was killed")
		Expect(<-created).To(Succeed())

		allBound(ctx, l, 4*time.Minute)
		GinkgoWriter.Printf("all %d shoots bound %s after the leader was killed\n", len(l.Shoots), time.Since(killedAt).Round(time.Second))
		standby := map[string]string{"graft-scheduler-0": "graft-scheduler-1", "graft-scheduler-1": "graft-scheduler-0"}[leader]
		Expect(running[standby].LogContains("Acquired the lease")).To(BeTrue(), "the standby %s never took over", standby)

		By("starting the killed replica again as the new standby")
		restart(ctx, leader)
	}, SpecTimeout(10*time.Minute))
})

var _ = Describe("Scenario 6: API server restart", Ordered, func() {
	l := landscape.Generate(landscape.Spec{
		Scenario: "s6", Providers: []string{"aws"}, RegionsPerProvider: 1, SeedsPerRegion: 6, SeedCapacity: 100, Shoots: 400,
	})
	ns := l.Namespace.Name

	BeforeAll(func() {
		if env.ControlPlane == nil {
			Skip("restarting the API server needs the local control plane; with KUBECONFIG set it is not ours to restart")
		}
	})

	restartAPIServer := func(ctx context.Context) {
		GinkgoHelper()
		stopped := time.Now()
		Expect(env.ControlPlane.StopAPIServer()).To(Succeed())
		time.Sleep(time.Second)
		Expect(env.ControlPlane.RestartAPIServer(ctx)).To(Succeed())
		GinkgoWriter.Printf("API server down for %s\n", time.Since(stopped).Round(100*time.Millisecond))
	}

	It("recovers in the middle of scheduling without restarting any component", func(ctx SpecContext) {
		Expect(createLandscape(ctx, &landscape.Landscape{Spec: l.Spec, Namespace: l.Namespace, CloudProfiles: l.CloudProfiles, Seeds: l.Seeds})).To(Succeed())
		Expect(createShoots(ctx, l.Shoots)).To(Succeed())
		Eventually(func(g Gomega) {
			n, err := boundCount(ctx, l)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(n).To(BeNumerically(">=", 20))
		}).WithContext(ctx).WithTimeout(time.Minute).WithPolling(200 * time.Millisecond).Should(Succeed())
		restartAPIServer(ctx)
		allBound(ctx, l, 3*time.Minute)
	}, SpecTimeout(6*time.Minute))

	It("recovers in the middle of a drain without restarting any component", func(ctx SpecContext) {
		x := l.Seeds[0].Name
		before, err := graft.CoreV1alpha1().Shoots(ns).List(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
		onX := 0
		for _, shoot := range before.Items {
			if ptr.Deref(shoot.Spec.SeedName, "") == x {
				onX++
			}
		}
		Expect(onX).To(BeNumerically(">", 0))
		mustGraftctl(ctx, "drain", x, "--wait=false")
		Eventually(func(g Gomega) {
			n, err := boundCount(ctx, l)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(n).To(BeNumerically("<", len(l.Shoots)), "no eviction yet")
		}).WithContext(ctx).WithTimeout(time.Minute).WithPolling(100 * time.Millisecond).Should(Succeed())
		restartAPIServer(ctx)
		Eventually(func(g Gomega) {
			list, err := graft.CoreV1alpha1().Shoots(ns).List(ctx, metav1.ListOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			for _, shoot := range list.Items {
				g.Expect(ptr.Deref(shoot.Spec.SeedName, "")).NotTo(Or(BeEmpty(), Equal(x)), "shoot %s", shoot.Name)
			}
		}).WithContext(ctx).WithTimeout(3 * time.Minute).WithPolling(2 * time.Second).Should(Succeed())
		allBound(ctx, l, time.Minute)
	}, SpecTimeout(6*time.Minute))
})
