//go:build integration

package scheduler

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/utils/ptr"

	graftclient "github.com/graft-dev/client-go/clientset/versioned"
	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/component"
	"github.com/graft-dev/graft/pkg/coretest"
	"github.com/graft-dev/graft/pkg/scheduler"
	"github.com/graft-dev/graft/test/framework"
)

func TestMain(m *testing.M) { framework.Main(m) }

// instance is one scheduler running in the test process.
type instance struct {
	*scheduler.Scheduler
	cancel context.CancelFunc
	done   chan struct{}
	err    error
}

// stop stops the scheduler and waits for Run to return.
func (i *instance) stop() {
	i.cancel()
	<-i.done
}

// startScheduler runs a scheduler until the test ends. userAgent names its
// writes in managedFields, so tests can tell which instance bound a shoot.
func startScheduler(t *testing.T, userAgent string, mutate func(*configv1alpha1.SchedulerConfiguration)) *instance {
	t.Helper()
	return startSchedulerWith(t, userAgent, nil, mutate, scheduler.Options{})
}

// startSchedulerWith is startScheduler with a hook on the REST config (for
// example to cut the instance off the API server) and the scheduler's options.
func startSchedulerWith(t *testing.T, userAgent string, restMutate func(*rest.Config), mutate func(*configv1alpha1.SchedulerConfiguration), opts scheduler.Options) *instance {
	t.Helper()
	env := framework.Shared(t)
	cfg := &configv1alpha1.SchedulerConfiguration{}
	cfg.LeaderElection.LeaderElect = ptr.To(false)
	cfg.Server.HealthProbeBindAddress = "127.0.0.1:0"
	cfg.Server.MetricsBindAddress = "127.0.0.1:0"
	cfg.ClientConnection.QPS = 500
	cfg.ClientConnection.Burst = 1000
	if mutate != nil {
		mutate(cfg)
	}
	cfg.Default()
	if errs := cfg.Validate(); len(errs) > 0 {
		t.Fatalf("invalid scheduler configuration: %v", errs.ToAggregate())
	}
	restConfig := component.ApplyClientConnection(env.Config(), cfg.ClientConnection)
	if restMutate != nil {
		restMutate(restConfig)
	}
	clients, err := component.NewClients(restConfig, userAgent)
	if err != nil {
		t.Fatal(err)
	}
	opts.Identity = userAgent
	s, err := scheduler.New(cfg, clients, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	inst := &instance{Scheduler: s, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(inst.done)
		inst.err = s.Run(ctx)
	}()
	t.Cleanup(inst.stop)
	return inst
}

// fixture creates uniquely named objects for one test: its own namespace and
// its own provider type, so that seeds of other tests never match its shoots.
type fixture struct {
	t        *testing.T
	ctx      context.Context
	graft    graftclient.Interface
	env      *framework.Env
	name     string
	provider string
	ns       string
}

var fixtureSeq struct {
	sync.Mutex
	n int
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	env := framework.Shared(t)
	fixtureSeq.Lock()
	fixtureSeq.n++
	n := fixtureSeq.n
	fixtureSeq.Unlock()
	name := fmt.Sprintf("%s-%d", strings.ToLower(strings.NewReplacer("/", "-", "_", "-").Replace(t.Name())), n)
	if len(name) > 40 {
		name = name[len(name)-40:]
		name = strings.TrimLeft(name, "-")
	}
	f := &fixture{t: t, ctx: context.Background(), graft: env.GraftClient(), env: env, name: name, provider: "prov-" + name, ns: "ns-" + name}
	if _, err := env.KubeClient().CoreV1().Namespaces().Create(f.ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: f.ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// No namespace controller runs: delete the test's shoots and seeds so
	// that later tests' schedulers do not keep retrying them.
	t.Cleanup(func() {
		ctx := context.Background()
		_ = f.graft.CoreV1alpha1().Shoots(f.ns).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{})
		_ = f.graft.CoreV1alpha1().Seeds().DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: "test=" + f.name})
	})
	f.createCloudProfile(nil)
	return f
}

func (f *fixture) createCloudProfile(mutate func(*v1alpha1.CloudProfile)) {
	f.t.Helper()
	cp := &v1alpha1.CloudProfile{
		ObjectMeta: metav1.ObjectMeta{Name: f.name},
		Spec:       v1alpha1.CloudProfileSpec{Type: f.provider},
	}
	if mutate != nil {
		mutate(cp)
	}
	if _, err := f.graft.CoreV1alpha1().CloudProfiles().Create(f.ctx, cp, metav1.CreateOptions{}); err != nil {
		f.t.Fatal(err)
	}
}

// createSeed creates a ready, visible seed of the fixture's provider type.
func (f *fixture) createSeed(name, region string, allocatable *int64, mutate func(*v1alpha1.Seed)) *v1alpha1.Seed {
	f.t.Helper()
	w := coretest.MakeSeed(f.name+"-"+name).Label("test", f.name).Provider(f.provider, region).Zones()
	if allocatable != nil {
		w.Allocatable(*allocatable).Status.Capacity = w.Status.Allocatable
	}
	status := w.Status
	seed := w.Obj()
	if mutate != nil {
		mutate(seed)
	}
	created, err := f.graft.CoreV1alpha1().Seeds().Create(f.ctx, seed, metav1.CreateOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	created.Status = status
	updated, err := f.graft.CoreV1alpha1().Seeds().UpdateStatus(f.ctx, created, metav1.UpdateOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	return updated
}

// newShoot returns (without creating it) a shoot of the fixture's provider type.
func (f *fixture) newShoot(name, region string) *v1alpha1.Shoot {
	return coretest.MakeShoot(f.ns, name).Provider(f.provider, region).CloudProfileName(f.name).Obj()
}

func (f *fixture) createShoot(shoot *v1alpha1.Shoot) *v1alpha1.Shoot {
	f.t.Helper()
	created, err := f.graft.CoreV1alpha1().Shoots(f.ns).Create(f.ctx, shoot, metav1.CreateOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	return created
}

func (f *fixture) getShoot(name string) *v1alpha1.Shoot {
	f.t.Helper()
	shoot, err := f.graft.CoreV1alpha1().Shoots(f.ns).Get(f.ctx, name, metav1.GetOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	return shoot
}

// waitFor polls cond every 100ms until it holds or timeout passes.
func (f *fixture) waitFor(what string, timeout time.Duration, cond func() (bool, error)) {
	f.t.Helper()
	err := wait.PollUntilContextTimeout(f.ctx, 100*time.Millisecond, timeout, true, func(context.Context) (bool, error) { return cond() })
	if err != nil {
		f.t.Fatalf("waiting %s for %s: %v", timeout, what, err)
	}
}

// waitForSeed waits until the shoot is bound and returns its seed.
func (f *fixture) waitForSeed(name string, timeout time.Duration) string {
	f.t.Helper()
	var seed string
	f.waitFor("shoot "+name+" to be bound", timeout, func() (bool, error) {
		shoot, err := f.graft.CoreV1alpha1().Shoots(f.ns).Get(f.ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if shoot.Spec.SeedName != nil {
			seed = *shoot.Spec.SeedName
			return true, nil
		}
		return false, nil
	})
	return seed
}

// events returns the Events about a shoot with the given reason.
func (f *fixture) events(shoot, reason string) []corev1.Event {
	f.t.Helper()
	list, err := f.env.KubeClient().CoreV1().Events(f.ns).List(f.ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=" + shoot + ",reason=" + reason})
	if err != nil {
		f.t.Fatal(err)
	}
	return list.Items
}

// ensureNamespace creates a namespace unless it exists.
func ensureNamespace(t *testing.T, name string) {
	t.Helper()
	_, err := framework.Shared(t).KubeClient().CoreV1().Namespaces().Create(context.Background(),
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}

var errNotYet = errors.New("not yet")

// metricValue reads a counter or gauge of the process's legacy registry (the
// schedulers of these tests run in-process): the sum of the series with the
// given label value; 0 when none exists yet.
func metricValue(t *testing.T, name, label, value string) float64 {
	t.Helper()
	families, err := legacyregistry.DefaultGatherer.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range families {
		if mf.GetName() != name {
			continue
		}
		sum := 0.0
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == label && l.GetValue() == value {
					if c := m.GetCounter(); c != nil {
						sum += c.GetValue()
					} else {
						sum += m.GetGauge().GetValue()
					}
				}
			}
		}
		return sum
	}
	return 0
}
