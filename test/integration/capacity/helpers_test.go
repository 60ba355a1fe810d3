//go:build integration

package capacity

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/transport"
	"k8s.io/component-base/metrics"
	"k8s.io/utils/ptr"

	graftclient "github.com/graft-dev/client-go/clientset/versioned"
	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/capacity"
	"github.com/graft-dev/graft/pkg/component"
	"github.com/graft-dev/graft/pkg/coretest"
	"github.com/graft-dev/graft/test/framework"
)

func TestMain(m *testing.M) { framework.Main(m) }

// testSyncPeriod keeps the tests quick; the burst test measures coalescing
// against it.
const testSyncPeriod = time.Second

// instance is one annotator running in the test process.
type instance struct {
	annotator *capacity.Annotator
	registry  metrics.KubeRegistry
	// stop stops the annotator and waits for it; the test's cleanup calls it
	// too, a second call does nothing.
	stop func()
}

// startAnnotator runs an annotator against the shared garden until the test
// ends. Only one runs at a time: tests do not run in parallel.
func startAnnotator(t *testing.T, mutate func(*configv1alpha1.CapacityAnnotatorConfiguration)) *instance {
	t.Helper()
	return startAnnotatorWith(t, mutate, nil)
}

// startAnnotatorWith is startAnnotator whose requests also pass through wrap
// (nil: none), to observe what the annotator sends.
func startAnnotatorWith(t *testing.T, mutate func(*configv1alpha1.CapacityAnnotatorConfiguration), wrap transport.WrapperFunc) *instance {
	t.Helper()
	env := framework.Shared(t)
	cfg := &configv1alpha1.CapacityAnnotatorConfiguration{}
	cfg.LeaderElection.LeaderElect = ptr.To(false)
	cfg.Server.HealthProbeBindAddress = configv1alpha1.DisabledBindAddress
	cfg.Server.MetricsBindAddress = configv1alpha1.DisabledBindAddress
	cfg.SyncPeriod = metav1.Duration{Duration: testSyncPeriod}
	if mutate != nil {
		mutate(cfg)
	}
	cfg.Default()
	if errs := cfg.Validate(); len(errs) > 0 {
		t.Fatalf("invalid annotator configuration: %v", errs)
	}
	inst := &instance{registry: metrics.NewKubeRegistry()}
	restConfig := component.ApplyClientConnection(env.Config(), cfg.ClientConnection)
	if wrap != nil {
		restConfig.Wrap(wrap)
	}
	clients, err := component.NewClients(restConfig, capacity.Name)
	if err != nil {
		t.Fatal(err)
	}
	inst.annotator, err = capacity.New(cfg, clients, capacity.Options{Registry: inst.registry})
	if err != nil {
		t.Fatal(err)
	}
	inst.stop = framework.RunUntilCleanup(t, "graft-capacity-annotator", inst.annotator.Run)
	framework.WaitFor(t, "the annotator to sync", waitTimeout, func(context.Context) (bool, error) {
		return inst.annotator.HasSynced(), nil
	})
	return inst
}

var unique atomic.Int64

// name returns a name no other test uses.
func name(prefix string) string {
	return fmt.Sprintf("%s-%d-%d", prefix, time.Now().UnixNano()%1_000_000, unique.Add(1))
}

// waitTimeout bounds the suite's waits for the annotator (framework.WaitFor).
const waitTimeout = 60 * time.Second

func graft(t *testing.T) graftclient.Interface {
	return framework.Shared(t).GraftClient()
}

// createReadySeed creates a seed whose agent reports it ready: GardenletReady True
// and a lastOperation, written by another field manager as a gardenlet would.
func createReadySeed(t *testing.T, name string, labels, annotations map[string]string) *v1alpha1.Seed {
	t.Helper()
	ctx := context.Background()
	seed := coretest.MakeSeed(name).Labels(labels).Annotations(annotations).Obj()
	created, err := graft(t).CoreV1alpha1().Seeds().Create(ctx, seed, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating seed %s: %v", name, err)
	}
	t.Cleanup(func() {
		_ = graft(t).CoreV1alpha1().Seeds().Delete(context.Background(), name, metav1.DeleteOptions{})
	})
	return setHealth(t, created, v1alpha1.ConditionTrue, true)
}

// setHealth writes GardenletReady and lastOperation as the seed's agent would.
func setHealth(t *testing.T, seed *v1alpha1.Seed, status v1alpha1.ConditionStatus, lastOperation bool) *v1alpha1.Seed {
	t.Helper()
	var out *v1alpha1.Seed
	err := retryConflict(func() error {
		cur, err := graft(t).CoreV1alpha1().Seeds().Get(context.Background(), seed.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		now := metav1.Now()
		cur.Status.Conditions = []v1alpha1.Condition{{Type: v1alpha1.SeedGardenletReady, Status: status, LastTransitionTime: now, LastUpdateTime: now, Reason: "Test"}}
		cur.Status.LastOperation = nil
		if lastOperation {
			cur.Status.LastOperation = &v1alpha1.LastOperation{Type: v1alpha1.LastOperationTypeReconcile, State: v1alpha1.LastOperationStateSucceeded, LastUpdateTime: now}
		}
		out, err = graft(t).CoreV1alpha1().Seeds().UpdateStatus(context.Background(), cur, metav1.UpdateOptions{FieldManager: "gardenlet"})
		return err
	})
	if err != nil {
		t.Fatalf("writing the health of seed %s: %v", seed.Name, err)
	}
	return out
}

func retryConflict(fn func() error) error {
	var err error
	for range 10 {
		if err = fn(); err == nil || !strings.Contains(err.Error(), "the object has been modified") {
			return err
		}
	}
	return err
}

func namespace(t *testing.T) string {
	t.Helper()
	ns := name("capacity")
	kube := framework.Shared(t).KubeClient()
	if _, err := kube.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating namespace: %v", err)
	}
	return ns
}

func createShoot(t *testing.T, ctx context.Context, ns, name string, seed *string) error {
	shoot := coretest.MakeShoot(ns, name).CloudProfileName("aws").Workers([]string{"a"}).Seed(ptr.Deref(seed, "")).Obj()
	_, err := graft(t).CoreV1alpha1().Shoots(ns).Create(ctx, shoot, metav1.CreateOptions{})
	return err
}

// bind sets spec.seedName (nil unbinds) as the scheduler does.
func bind(ctx context.Context, client graftclient.Interface, ns, name string, seed *string) error {
	value := "null"
	if seed != nil {
		value = fmt.Sprintf("%q", *seed)
	}
	_, err := client.CoreV1alpha1().Shoots(ns).Patch(ctx, name, types.MergePatchType,
		[]byte(`{"spec":{"seedName":`+value+`}}`), metav1.PatchOptions{})
	return err
}

// setStatusSeed sets status.seedName as a gardenlet does when it takes over a shoot.
func setStatusSeed(ctx context.Context, client graftclient.Interface, ns, name string, seed string) error {
	_, err := client.CoreV1alpha1().Shoots(ns).Patch(ctx, name, types.MergePatchType,
		[]byte(`{"status":{"seedName":"`+seed+`"}}`), metav1.PatchOptions{}, "status")
	return err
}

// quantity renders a number of shoots as a plain integer (a Quantity prints
// 2000 as "2k").
func quantity(l corev1.ResourceList) string {
	if q, ok := l[v1alpha1.ResourceShoots]; ok {
		return fmt.Sprint(q.Value())
	}
	return "unset"
}

// waitForStatus waits until the seed's shoots capacity, allocatable and usage
// are as wanted ("" means any value).
func waitForStatus(t *testing.T, seed, capacity, allocatable, usage string) *v1alpha1.Seed {
	t.Helper()
	var got *v1alpha1.Seed
	framework.WaitFor(t, fmt.Sprintf("seed %s to have capacity %q allocatable %q usage %q", seed, capacity, allocatable, usage), waitTimeout, func(ctx context.Context) (bool, error) {
		s, err := graft(t).CoreV1alpha1().Seeds().Get(ctx, seed, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		got = s
		c, a, u := quantity(s.Status.Capacity), quantity(s.Status.Allocatable), quantity(s.Status.Usage)
		if (capacity == "" || c == capacity) && (allocatable == "" || a == allocatable) && (usage == "" || u == usage) {
			return true, nil
		}
		return false, fmt.Errorf("capacity %s allocatable %s usage %s", c, a, u)
	})
	return got
}

// eventsFor lists the Events with the given reason about a seed.
func eventsFor(t *testing.T, ctx context.Context, seed, reason string) ([]corev1.Event, error) {
	list, err := framework.Shared(t).KubeClient().CoreV1().Events(metav1.NamespaceAll).List(ctx, metav1.ListOptions{
		FieldSelector: "involvedObject.name=" + seed + ",reason=" + reason,
	})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

// gauge reads one series of a gauge from an annotator's registry.
func (i *instance) gauge(metric, seed string) (float64, error) {
	families, err := i.registry.Gather()
	if err != nil {
		return 0, err
	}
	for _, f := range families {
		if f.GetName() != metric {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "seed" && l.GetValue() == seed {
					return m.GetGauge().GetValue(), nil
				}
			}
		}
	}
	return 0, errors.New("no series " + metric + "{seed=" + seed + "}")
}

// counterTotal reads the sum of a counter's series from an annotator's registry.
func (i *instance) counterTotal(metric string) (float64, error) {
	families, err := i.registry.Gather()
	if err != nil {
		return 0, err
	}
	total := 0.0
	for _, f := range families {
		if f.GetName() != metric {
			continue
		}
		for _, m := range f.GetMetric() {
			total += m.GetCounter().GetValue()
		}
	}
	return total, nil
}
