//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"strconv"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/test/e2e/landscapegen"
	"github.com/graft-dev/graft/test/invariant"
)

// The invariant monitor runs from the first scenario to the end of the
// suite: every spec is judged by it after it ran (AfterEach), and the suite
// fails at its end when anything was ever recorded (AfterSuite), so a
// violation a component repaired later, or one in the last spec Ginkgo runs,
// still fails the suite.

// flushSpec is the suite's own marker shoot: no scheduler answers to its
// spec.schedulerName, so nothing but the suite writes it. A write to it
// comes back through the shoot watch after every shoot change made before
// it, which tells when the monitor has seen everything up to a moment.
var flushSpec = landscapegen.Spec{Scenario: "e2e-invariants"}

const flushName = "flush"

// startMonitor creates the flush marker, lists and watches every source and
// keeps the monitor judging until the suite ends.
func startMonitor(ctx context.Context) error {
	monitor = invariant.NewMonitor(invariant.MonitorOptions{
		Logf: func(format string, args ...any) {
			GinkgoWriter.Printf("%s invariants: %s\n", time.Now().UTC().Format("15:04:05.000"), fmt.Sprintf(format, args...))
		},
		Ignore: func(shoot *corev1alpha1.Shoot) bool { return shoot.Namespace == "garden-"+flushSpec.Scenario },
	})
	// As the suite's graft-scheduler replicas are configured (their chart's defaults).
	for name, cfg := range schedulerConfigs {
		monitor.SetScheduler(name, cfg)
	}

	if err := ensureNamespace(ctx, env.KubeClient(), "garden-"+flushSpec.Scenario); err != nil {
		return err
	}
	marker := landscapegen.Shoot(flushSpec, flushName, "none", "none", corev1alpha1.ShootPurposeEvaluation, false)
	marker.Spec.SchedulerName = ptr.To("e2e-invariants-no-scheduler")
	if _, err := graft.CoreV1alpha1().Shoots(marker.Namespace).Create(ctx, marker, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating the flush marker: %w", err)
	}

	feed = &invariant.Feed{
		Monitor: monitor,
		Sources: invariant.Sources(graft, env.KubeClient()),
		Logf: func(format string, args ...any) {
			GinkgoWriter.Printf("invariants: %s\n", fmt.Sprintf(format, args...))
		},
	}
	watchCtx, stop := context.WithCancel(context.Background())
	DeferCleanup(stop)
	if err := feed.Start(ctx, watchCtx); err != nil {
		return err
	}
	monitorStarted = true
	go func() {
		// Brings the checker's views of the inputs up to pending bindings and
		// judges them.
		for watchCtx.Err() == nil {
			feed.CatchUp(watchCtx)
			time.Sleep(250 * time.Millisecond)
		}
	}()
	return nil
}

// feed lists and watches what the monitor follows.
var feed *invariant.Feed

// flush returns once the monitor has judged every change made before it was
// called: it writes the marker, waits for that write to come through the
// shoot watch, and then until every binding up to it is judged.
func flush(ctx context.Context) {
	GinkgoHelper()
	patch := fmt.Sprintf(`{"metadata":{"annotations":{"e2e.graft.dev/flush":%q}}}`, strconv.FormatInt(time.Now().UnixNano(), 10))
	var rv string
	Eventually(func() error {
		marker, err := graft.CoreV1alpha1().Shoots("garden-"+flushSpec.Scenario).Patch(ctx, flushName, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
		if err == nil {
			rv = marker.ResourceVersion
		}
		return err
	}).WithContext(ctx).WithTimeout(time.Minute).WithPolling(time.Second).Should(Succeed())
	Eventually(func() bool { return monitor.Reached(invariant.KindShoot, rv) }).WithContext(ctx).WithTimeout(2*time.Minute).WithPolling(100*time.Millisecond).
		Should(BeTrue(), "the monitor's shoot watch did not deliver resourceVersion %s", rv)
	Eventually(func() int {
		feed.CatchUp(ctx)
		return monitor.PendingUpTo(rv)
	}).WithContext(ctx).WithTimeout(2*time.Minute).WithPolling(100*time.Millisecond).Should(BeZero(), "bindings left unjudged")
}

// monitorStarted is set once every watch of the monitor runs.
var monitorStarted bool

// specStartViolations is how many violations were recorded when the current spec began.
var specStartViolations int

var _ = BeforeEach(func() {
	specStartViolations = len(monitor.Violations())
})

// AfterEach spec, what the monitor recorded while it ran fails it.
var _ = AfterEach(func(ctx SpecContext) {
	flush(ctx)
	vs := monitor.Violations()
	Expect(violationStrings(vs[specStartViolations:])).To(BeEmpty(), "invariants broken while this spec ran")
}, NodeTimeout(5*time.Minute))

// finalCheck runs first in AfterSuite: every landscape settles into a valid
// state, and nothing was ever recorded by the monitor.
func finalCheck(ctx context.Context) {
	GinkgoHelper()
	if monitor == nil || !monitorStarted {
		// BeforeSuite failed before the monitor ran; that failed the suite.
		return
	}
	flush(ctx)
	By("checking every scenario's final state")
	Eventually(func(g Gomega) {
		for _, l := range landscapes {
			s, err := state(ctx, l.Selector(), l.Namespace.Name)
			g.Expect(err).NotTo(HaveOccurred())
			seeds := map[string]*corev1alpha1.Seed{}
			for _, seed := range s.Seeds {
				seeds[seed.Name] = seed
			}
			vs, _ := invariant.Check(s, invariant.AllowNoScheduleTaints(seeds))
			g.Expect(violationStrings(vs)).To(BeEmpty(), "scenario %s", l.Spec.Scenario)
			vs, _ = invariant.CheckPending(s)
			g.Expect(violationStrings(vs)).To(BeEmpty(), "scenario %s", l.Spec.Scenario)
		}
	}).WithContext(ctx).WithTimeout(2 * time.Minute).WithPolling(2 * time.Second).Should(Succeed())
	for _, l := range landscapes {
		s, err := state(ctx, l.Selector(), l.Namespace.Name)
		Expect(err).NotTo(HaveOccurred())
		_, placedSkips := invariant.Check(s, nil)
		_, pendingSkips := invariant.CheckPending(s)
		for _, skip := range append(placedSkips, pendingSkips...) {
			GinkgoWriter.Printf("final state of %s: %s\n", l.Spec.Scenario, skip)
		}
	}
	GinkgoWriter.Printf("invariants: %d bindings judged, %d violations, %d watch gaps; judgements skipped, by reason:\n",
		monitor.Judged(), len(monitor.Violations()), monitor.Gaps())
	for _, line := range monitor.SkipSummary() {
		GinkgoWriter.Printf("  %s\n", line)
	}
	Expect(violationStrings(monitor.Violations())).To(BeEmpty(), "invariants broken during the suite")
}
