//go:build e2e

package e2e

import (
	"context"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"

	graftclient "github.com/graft-dev/client-go/clientset/versioned"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/test/e2e/landscapegen"
)

// boundCount counts the landscape's shoots that have a seed.
func boundCount(ctx context.Context, l *landscapegen.Landscape) (int, error) {
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
// the invariants and that each shoot's spec changed as often as wanted says
// (its generation: 2 for a shoot bound once).
func allBound(ctx context.Context, l *landscapegen.Landscape, timeout time.Duration, wantGeneration func(name string) int64) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		n, err := boundCount(ctx, l)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(n).To(Equal(len(l.Shoots)))
	}).WithContext(ctx).WithTimeout(timeout).WithPolling(2 * time.Second).Should(Succeed())
	settledClean(ctx, l)
	list, err := graft.CoreV1alpha1().Shoots(l.Namespace.Name).List(ctx, metav1.ListOptions{})
	Expect(err).NotTo(HaveOccurred())
	for _, shoot := range list.Items {
		Expect(shoot.Generation).To(Equal(wantGeneration(shoot.Name)), "shoot %s on seed %s: spec changed %d times; last eviction: %v",
			shoot.Name, ptr.Deref(shoot.Spec.SeedName, ""), shoot.Generation-1, shoot.Annotations)
	}
}

func boundOnce(string) int64 { return 2 }

var _ = Describe("Scenario 5: leader failover under load", processLabel, Ordered, func() {
	// 20 seeds of 120 shoots (2,400 slots) for 2,000 shoots.
	l := landscapegen.Generate(landscapegen.Spec{
		Scenario: "s5", Providers: []string{"aws"}, RegionsPerProvider: 2, SeedsPerRegion: 10, SeedCapacity: 120, Shoots: 2000,
	})

	It("lets the standby finish a 2,000-shoot burst when the leader is killed in the middle", func(ctx SpecContext) {
		leader := leadingScheduler()
		Expect(createLandscape(ctx, &landscapegen.Landscape{Spec: l.Spec, Namespace: l.Namespace, CloudProfiles: l.CloudProfiles, Seeds: l.Seeds})).To(Succeed())

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

		allBound(ctx, l, 4*time.Minute, boundOnce)
		GinkgoWriter.Printf("all %d shoots bound %s after the leader was killed\n", len(l.Shoots), time.Since(killedAt).Round(time.Second))
		standby := map[string]string{"graft-scheduler-0": "graft-scheduler-1", "graft-scheduler-1": "graft-scheduler-0"}[leader]
		Expect(running[standby].LogContains("Acquired the lease")).To(BeTrue(), "the standby %s never took over", standby)

		By("starting the killed replica again as the new standby")
		restart(ctx, leader)
	}, SpecTimeout(10*time.Minute))
})

var _ = Describe("Scenario 6: API server restart", processLabel, Ordered, func() {
	l := landscapegen.Generate(landscapegen.Spec{
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
		from := map[*component]int64{}
		for _, c := range running {
			from[c] = c.LogSize()
		}
		stopping := time.Now()
		Expect(env.ControlPlane.StopAPIServer()).To(Succeed())
		stopped := time.Now()
		time.Sleep(time.Second)
		Expect(env.ControlPlane.RestartAPIServer(ctx)).To(Succeed())
		GinkgoWriter.Printf("API server stopped in %s, down for %s\n", stopped.Sub(stopping).Round(100*time.Millisecond), time.Since(stopped).Round(100*time.Millisecond))
		// A restarted API server refuses requests until its RBAC caches are
		// filled again; what the components log until then is no verdict on
		// their permissions.
		sa, err := clientcmd.BuildConfigFromFlags("", filepath.Join(running["graft-scheduler-0"].Dir, "kubeconfig"))
		Expect(err).NotTo(HaveOccurred())
		saClient := graftclient.NewForConfigOrDie(sa)
		Eventually(func() error {
			_, err := saClient.CoreV1alpha1().Seeds().List(ctx, metav1.ListOptions{Limit: 1})
			return err
		}).WithContext(ctx).WithTimeout(time.Minute).WithPolling(200 * time.Millisecond).Should(Succeed())
		// Every leader renews its Lease every few seconds; a renewal after
		// the service account's request above shows the API server
		// authorizes the components again, and the refusals they received
		// before have been logged by then (the renewals are their own
		// requests, answered after those).
		authorized := time.Now()
		for _, lease := range []string{"graft-scheduler", "graft-capacity-annotator", "graft-descheduler"} {
			Eventually(func(g Gomega) {
				l, err := env.KubeClient().CoordinationV1().Leases(corev1alpha1.GardenNamespace).Get(ctx, lease, metav1.GetOptions{})
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(l.Spec.RenewTime).NotTo(BeNil())
				g.Expect(l.Spec.RenewTime.Time).To(BeTemporally(">", authorized), "Lease %s not renewed since the API server authorizes again", lease)
			}).WithContext(ctx).WithTimeout(2 * time.Minute).WithPolling(200 * time.Millisecond).Should(Succeed())
		}
		for c, offset := range from {
			c.Quiet(offset)
			c.forgiven = forbiddenRequests(ctx, c)
		}
	}

	It("recovers in the middle of scheduling without restarting any component", func(ctx SpecContext) {
		Expect(createLandscape(ctx, &landscapegen.Landscape{Spec: l.Spec, Namespace: l.Namespace, CloudProfiles: l.CloudProfiles, Seeds: l.Seeds})).To(Succeed())
		Expect(createShoots(ctx, l.Shoots)).To(Succeed())
		Eventually(func(g Gomega) {
			n, err := boundCount(ctx, l)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(n).To(BeNumerically(">=", 20))
		}).WithContext(ctx).WithTimeout(time.Minute).WithPolling(200 * time.Millisecond).Should(Succeed())
		restartAPIServer(ctx)
		allBound(ctx, l, 3*time.Minute, boundOnce)
	}, SpecTimeout(6*time.Minute))

	It("recovers in the middle of a drain without restarting any component", func(ctx SpecContext) {
		x := l.Seeds[0].Name
		before, err := graft.CoreV1alpha1().Shoots(ns).List(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
		onX := map[string]bool{}
		for _, shoot := range before.Items {
			if ptr.Deref(shoot.Spec.SeedName, "") == x {
				onX[shoot.Name] = true
			}
		}
		Expect(onX).NotTo(BeEmpty())
		evictions := func() int {
			n := 0
			for name := range onX {
				n += monitor.Evictions(ns + "/" + name)
			}
			return n
		}
		mustGraftctl(ctx, "drain", x, "--wait=false")
		// The monitor's watch sees every eviction, however soon the shoot is
		// placed again; a poll of the shoots could miss them all.
		Eventually(evictions).WithContext(ctx).WithTimeout(time.Minute).WithPolling(100*time.Millisecond).Should(BeNumerically(">", 0), "no eviction yet")
		GinkgoWriter.Printf("restarting the API server after %d of %d evictions from %s\n", evictions(), len(onX), x)
		restartAPIServer(ctx)
		Eventually(func(g Gomega) {
			list, err := graft.CoreV1alpha1().Shoots(ns).List(ctx, metav1.ListOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			for _, shoot := range list.Items {
				g.Expect(ptr.Deref(shoot.Spec.SeedName, "")).NotTo(Or(BeEmpty(), Equal(x)), "shoot %s", shoot.Name)
			}
		}).WithContext(ctx).WithTimeout(3 * time.Minute).WithPolling(2 * time.Second).Should(Succeed())
		// Bound (2), and the ones on X evicted (3) and bound again (4).
		allBound(ctx, l, time.Minute, func(name string) int64 {
			if onX[name] {
				return 4
			}
			return 2
		})
	}, SpecTimeout(6*time.Minute))
})
