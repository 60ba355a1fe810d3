//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/kubectl/pkg/drain"
	"k8s.io/utils/ptr"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/test/charts"
	"github.com/graft-dev/graft/test/e2e/landscapegen"
)

// Scenario 8 runs only against graft's pods (make test-e2e-kind, and make
// test on kind): what the charts and the image do in a cluster.
var _ = Describe("Scenario 8: graft as pods", podLabel, Ordered, func() {
	l := landscapegen.Generate(landscapegen.Spec{Scenario: "s8", Providers: []string{"aws"}, RegionsPerProvider: 1, SeedsPerRegion: 2, SeedCapacity: 500})
	ns := l.Namespace.Name
	seq := 0
	// newShoots returns n shoots of the landscape without a seed, named anew.
	newShoots := func(prefix string, n int) []*corev1alpha1.Shoot {
		var out []*corev1alpha1.Shoot
		for i := 0; i < n; i++ {
			seq++
			out = append(out, landscapegen.Shoot(l.Spec, fmt.Sprintf("%s-%d", prefix, seq), l.Seeds[0].Spec.Provider.Type, l.Seeds[0].Spec.Provider.Region, corev1alpha1.ShootPurposeProduction, false))
		}
		return out
	}
	// boundOnceEach waits until every shoot has a seed, then checks that each
	// was bound exactly once: created (generation 1), bound (2), no second
	// binding or eviction.
	boundOnceEach := func(ctx context.Context, shoots []*corev1alpha1.Shoot) {
		GinkgoHelper()
		Eventually(func(g Gomega) {
			for _, shoot := range shoots {
				got, err := graft.CoreV1alpha1().Shoots(ns).Get(ctx, shoot.Name, metav1.GetOptions{})
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(ptr.Deref(got.Spec.SeedName, "")).NotTo(BeEmpty(), "shoot %s is not bound", shoot.Name)
			}
		}).WithContext(ctx).WithTimeout(2 * time.Minute).WithPolling(time.Second).Should(Succeed())
		gen := generations(ctx, ns)
		for _, shoot := range shoots {
			Expect(gen[shoot.Name]).To(Equal(int64(2)), "shoot %s: spec changed %d times", shoot.Name, gen[shoot.Name]-1)
		}
	}

	BeforeAll(func(ctx SpecContext) {
		if !podsMode {
			Fail("scenario 8 needs graft running as pods (GRAFT_E2E_COMPONENTS=pods); filter it out with --ginkgo.label-filter='!pods'")
		}
		Expect(createLandscape(ctx, l)).To(Succeed())
	})

	It("answers its probes and serves its metrics through its Services", func(ctx SpecContext) {
		kube := env.KubeClient()
		Eventually(func(g Gomega) { deploymentsReady(g, ctx) }).WithContext(ctx).WithTimeout(podWait).WithPolling(time.Second).Should(Succeed())
		for _, chart := range charts.ComponentCharts {
			pods, err := componentPods(ctx, chart)
			Expect(err).NotTo(HaveOccurred())
			Expect(pods).NotTo(BeEmpty())
			for _, pod := range pods {
				// The image's user, not root, on a read-only root filesystem.
				c := pod.Spec.Containers[0]
				Expect(ptr.Deref(pod.Spec.SecurityContext.RunAsUser, 0)).To(Equal(int64(65532)), "pod %s", pod.Name)
				Expect(ptr.Deref(c.SecurityContext.ReadOnlyRootFilesystem, false)).To(BeTrue(), "pod %s", pod.Name)
				Expect(c.Command).To(Equal([]string{"/usr/local/bin/" + chart}), "pod %s", pod.Name)
			}
			service := chart + "-metrics"
			for _, path := range []string{"/healthz", "/readyz"} {
				body, err := kube.CoreV1().Services(componentNamespace).ProxyGet("http", service, "health", path, nil).DoRaw(ctx)
				Expect(err).NotTo(HaveOccurred(), "%s through Service %s", path, service)
				Expect(strings.TrimSpace(string(body))).To(Equal("ok"), "%s through Service %s", path, service)
			}
			body, err := kube.CoreV1().Services(componentNamespace).ProxyGet("http", service, "metrics", "/metrics", nil).DoRaw(ctx)
			Expect(err).NotTo(HaveOccurred(), "/metrics through Service %s", service)
			Expect(string(body)).To(ContainSubstring(leaderSample(chart)+" "), "/metrics through Service %s", service)
		}
		By("each replica serves client-go's leader-election metric, and exactly one leads")
		// Right after a rollout the new replicas may still be waiting for the
		// old leader's Lease.
		Eventually(func(g Gomega) {
			for _, chart := range charts.ComponentCharts {
				pods, err := componentPods(ctx, chart)
				g.Expect(err).NotTo(HaveOccurred())
				leaders := 0
				for i := range pods {
					v, err := podMetric(ctx, &pods[i], leaderSample(chart))
					g.Expect(err).NotTo(HaveOccurred())
					if v == 1 {
						leaders++
					}
				}
				g.Expect(leaders).To(Equal(1), "%s: replicas that say they lead", chart)
			}
		}).WithContext(ctx).WithTimeout(time.Minute).WithPolling(time.Second).Should(Succeed())
	})

	It("hands the lease to the standby when the leading pod is deleted, and keeps scheduling", func(ctx SpecContext) {
		kube := env.KubeClient()
		leader, err := leaderPod(ctx, "graft-scheduler")
		Expect(err).NotTo(HaveOccurred())
		By("deleting the leading scheduler pod " + leader)
		Expect(kube.CoreV1().Pods(componentNamespace).Delete(ctx, leader, metav1.DeleteOptions{})).To(Succeed())
		var next string
		Eventually(func(g Gomega) {
			next, err = leaderPod(ctx, "graft-scheduler")
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(next).NotTo(Equal(leader))
		}).WithContext(ctx).WithTimeout(time.Minute).WithPolling(250 * time.Millisecond).Should(Succeed())
		pods, err := componentPods(ctx, "graft-scheduler")
		Expect(err).NotTo(HaveOccurred())
		Expect(pods).To(ContainElement(HaveField("ObjectMeta.Name", next)), "the new leader %s is not a scheduler pod", next)

		shoots := newShoots("s8-failover", 5)
		Expect(createShoots(ctx, shoots)).To(Succeed())
		boundOnceEach(ctx, shoots)
		Eventually(func(g Gomega) { deploymentsReady(g, ctx) }).WithContext(ctx).WithTimeout(podWait).WithPolling(time.Second).Should(Succeed())
	})

	It("rolls out a changed config with helm upgrade while shoots arrive, binding none twice", func(ctx SpecContext) {
		before, err := componentPods(ctx, "graft-scheduler")
		Expect(err).NotTo(HaveOccurred())
		shoots := newShoots("s8-upgrade", 40)
		var created sync.WaitGroup
		var createErr error
		created.Add(1)
		go func() {
			defer GinkgoRecover()
			defer created.Done()
			// A shoot every 200ms through the whole rollout.
			for _, shoot := range shoots {
				if _, err := graft.CoreV1alpha1().Shoots(ns).Create(ctx, shoot.DeepCopy(), metav1.CreateOptions{}); err != nil {
					createErr = err
					return
				}
				select {
				case <-ctx.Done():
					return
				case <-time.After(200 * time.Millisecond):
				}
			}
		}()
		By("helm upgrade graft-scheduler with config.concurrentSyncs=4")
		Expect(installPods(ctx, map[string][]string{"graft-scheduler": {"config.concurrentSyncs=4"}})).To(Succeed())
		created.Wait()
		Expect(createErr).NotTo(HaveOccurred())

		By("every scheduler pod is new and runs the new config")
		cm, err := env.KubeClient().CoreV1().ConfigMaps(componentNamespace).Get(ctx, "graft-scheduler-config", metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(cm.Data["config.yaml"]).To(ContainSubstring("concurrentSyncs: 4"))
		old := sets.New[string]()
		for _, pod := range before {
			old.Insert(pod.Name)
		}
		Eventually(func(g Gomega) {
			after, err := componentPods(ctx, "graft-scheduler")
			g.Expect(err).NotTo(HaveOccurred())
			for _, pod := range after {
				g.Expect(old.Has(pod.Name)).To(BeFalse(), "pod %s of the old config still runs", pod.Name)
			}
		}).WithContext(ctx).WithTimeout(podWait).WithPolling(time.Second).Should(Succeed())
		boundOnceEach(ctx, shoots)
	})

	It("drains a node of graft's pods only as far as the PodDisruptionBudgets allow", func(ctx SpecContext) {
		kube := env.KubeClient()
		leader, err := leaderPod(ctx, "graft-scheduler")
		Expect(err).NotTo(HaveOccurred())
		pod, err := kube.CoreV1().Pods(componentNamespace).Get(ctx, leader, metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		nodeName := pod.Spec.NodeName
		nodes, err := kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
		schedulable := 0
		for _, n := range nodes.Items {
			if !n.Spec.Unschedulable && n.Name != nodeName {
				schedulable++
			}
		}

		// Each Deployment's available replicas, watched through the drain.
		lowest, stop := watchAvailable(ctx)
		var errOut bytes.Buffer
		evicted := map[string]int{}
		var mu sync.Mutex
		helper := &drain.Helper{
			Ctx: ctx, Client: kube,
			GracePeriodSeconds: -1, IgnoreAllDaemonSets: true, DeleteEmptyDirData: true,
			// graft's pods only: other workloads are not this suite's.
			PodSelector: "app.kubernetes.io/name in (" + strings.Join(charts.ComponentCharts, ",") + ")",
			// On a single node a replacement can never start, so the second
			// replica's eviction is refused for good; half a minute shows it.
			Timeout: 30 * time.Second,
			Out:     GinkgoWriter, ErrOut: &errOut,
			OnPodDeletionOrEvictionFinished: func(pod *corev1.Pod, usingEviction bool, err error) {
				if err == nil && usingEviction {
					mu.Lock()
					evicted[pod.Labels["app.kubernetes.io/name"]]++
					mu.Unlock()
				}
			},
		}
		node, err := kube.CoreV1().Nodes().Get(ctx, nodeName, metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		By("cordoning and draining node " + nodeName)
		Expect(drain.RunCordonOrUncordon(helper, node, true)).To(Succeed())
		DeferCleanup(func(ctx SpecContext) {
			node, err := kube.CoreV1().Nodes().Get(ctx, nodeName, metav1.GetOptions{})
			Expect(err).NotTo(HaveOccurred())
			Expect(drain.RunCordonOrUncordon(&drain.Helper{Ctx: ctx, Client: kube, Out: GinkgoWriter, ErrOut: GinkgoWriter}, node, false)).To(Succeed())
		})
		drainErr := drain.RunNodeDrain(helper, nodeName)

		By("scheduling goes on while the node is drained")
		shoots := newShoots("s8-drain", 5)
		Expect(createShoots(ctx, shoots)).To(Succeed())
		boundOnceEach(ctx, shoots)
		stop()

		for _, chart := range charts.ComponentCharts {
			Expect(lowest(chart)).To(BeNumerically(">=", 1), "Deployment %s had no available replica during the drain", chart)
			Expect(evicted[chart]).To(BeNumerically(">=", 1), "no pod of %s was evicted", chart)
		}
		if schedulable == 0 {
			// The evicted replicas' replacements cannot start anywhere, so
			// each budget (maxUnavailable 1) refuses the second eviction.
			Expect(drainErr).To(HaveOccurred(), "the drain evicted every replica with nowhere for them to go")
			Expect(errOut.String()).To(ContainSubstring("disruption budget"))
			for _, chart := range charts.ComponentCharts {
				Expect(evicted[chart]).To(Equal(1), "pods of %s evicted", chart)
				pdb, err := kube.PolicyV1().PodDisruptionBudgets(componentNamespace).Get(ctx, chart, metav1.GetOptions{})
				Expect(err).NotTo(HaveOccurred())
				Expect(pdb.Status.DisruptionsAllowed).To(BeZero(), "PodDisruptionBudget %s", chart)
			}
		} else {
			Expect(drainErr).NotTo(HaveOccurred())
		}

		By("uncordoned, every Deployment is whole again")
		node, err = kube.CoreV1().Nodes().Get(ctx, nodeName, metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(drain.RunCordonOrUncordon(helper, node, false)).To(Succeed())
		Eventually(func(g Gomega) { deploymentsReady(g, ctx) }).WithContext(ctx).WithTimeout(podWait).WithPolling(time.Second).Should(Succeed())
	})
})

// watchAvailable follows the component Deployments and returns, per chart,
// the fewest available replicas seen until stop is called.
func watchAvailable(ctx context.Context) (lowest func(chart string) int32, stop func()) {
	GinkgoHelper()
	ctx, cancel := context.WithCancel(ctx)
	deployments := env.KubeClient().AppsV1().Deployments(componentNamespace)
	list, err := deployments.List(ctx, metav1.ListOptions{})
	Expect(err).NotTo(HaveOccurred())
	low := map[string]int32{}
	for _, d := range list.Items {
		low[d.Name] = d.Status.AvailableReplicas
	}
	w, err := deployments.Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	Expect(err).NotTo(HaveOccurred())
	var mu sync.Mutex
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range w.ResultChan() {
			d, ok := ev.Object.(*appsv1.Deployment)
			if !ok {
				continue
			}
			mu.Lock()
			if v, seen := low[d.Name]; !seen || d.Status.AvailableReplicas < v {
				low[d.Name] = d.Status.AvailableReplicas
			}
			mu.Unlock()
		}
	}()
	return func(chart string) int32 {
			mu.Lock()
			defer mu.Unlock()
			v, seen := low[chart]
			if !seen {
				return -1
			}
			return v
		}, func() {
			w.Stop()
			cancel()
			<-done
		}
}

// leaderSample is client-go's leader-election sample of a component's Lease:
// 1 on the leader, 0 on a standby.
func leaderSample(chart string) string {
	return fmt.Sprintf("leader_election_master_status{name=%q}", chart)
}
