package drain

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	"github.com/graft-dev/client-go/clientset/versioned/fake"
	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"

	"github.com/graft-dev/graft/pkg/coretest"
	"github.com/graft-dev/graft/pkg/graftctl/cmdtest"
	"github.com/graft-dev/graft/pkg/graftctl/factory"
)

var tolerateDrain = corev1alpha1.Toleration{Key: corev1alpha1.SeedTaintUnschedulable}

func landscapeObjects() []runtime.Object {
	return []runtime.Object{
		coretest.MakeCloudProfile("aws").Regions("eu-west-1").Obj(),
		coretest.MakeSeed("a").Obj(),
		coretest.MakeSeed("b").Allocatable(1).Obj(),
		coretest.MakeSeed("c").Region("us-east-1").Obj(),
		coretest.MakeShoot("ns", "s1").Seed("a").Obj(),
		coretest.MakeShoot("ns", "s2").Seed("a").Obj(),
		coretest.MakeShoot("ns", "s3").Seed("a").Tolerations(tolerateDrain).Obj(),
		coretest.MakeShoot("ns", "elsewhere").Seed("c").Obj(),
	}
}

func lease(renewed time.Time, seconds int32) *coordinationv1.Lease {
	return &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Namespace: "garden", Name: "graft-descheduler"},
		Spec: coordinationv1.LeaseSpec{
			HolderIdentity:       ptr.To("descheduler-0"),
			LeaseDurationSeconds: ptr.To(seconds),
			RenewTime:            &metav1.MicroTime{Time: renewed},
		},
	}
}

func run(ctx context.Context, graft *fake.Clientset, kube *kubefake.Clientset, args ...string) (string, string, error) {
	var out, errOut bytes.Buffer
	cmd := NewCommand(&factory.Static{Graft: graft, Kube: kube}, genericiooptions.IOStreams{In: &bytes.Buffer{}, Out: &out, ErrOut: &errOut})
	cmd.SetArgs(args)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err := cmd.ExecuteContext(ctx)
	return out.String(), errOut.String(), err
}

func writes(client *fake.Clientset) int {
	n := 0
	for _, a := range client.Actions() {
		if v := a.GetVerb(); v == "patch" || v == "update" || v == "create" || v == "delete" {
			n++
		}
	}
	return n
}

func TestDryRunReportsPlacementsAndChangesNothing(t *testing.T) {
	graft := fake.NewSimpleClientset(landscapeObjects()...)
	out, _, err := run(context.Background(), graft, kubefake.NewSimpleClientset(), "a", "--dry-run")
	if err != nil {
		t.Fatal(err)
	}
	want := `seed/a cordoned (dry run)
seed/a marked for eviction (seed.gardener.cloud/unschedulable:NoExecute) (dry run)
Scheduling configuration: SameRegion, no score weights (defaults: the scheduler's Lease garden/graft-scheduler could not be read: leases.coordination.k8s.io "graft-scheduler" not found)
shoot/ns/s1 would move to seed/b
shoot/ns/s2 cannot move: `
	if !strings.HasPrefix(out, want) {
		t.Fatalf("output:\n%s\nwant prefix:\n%s", out, want)
	}
	cmdtest.Contains(t, out,
		"shoot/ns/s3 tolerates seed.gardener.cloud/unschedulable:NoExecute and stays on seed/a\n",
		"3 shoot(s) on seed/a: 1 would move, 1 cannot move, 1 stay (dry run)\n",
	)
	if writes(graft) != 0 {
		t.Errorf("dry run wrote %d times", writes(graft))
	}
}

// TestDryRunCountsShootsWaitingForASeed: a shoot already waiting for a seed
// takes the last free slot of seed b before any shoot the drain would evict,
// as graft-descheduler reserves it.
func TestDryRunCountsShootsWaitingForASeed(t *testing.T) {
	graft := fake.NewSimpleClientset(append(landscapeObjects(), coretest.MakeShoot("ns", "new").Obj())...)
	out, _, err := run(context.Background(), graft, kubefake.NewSimpleClientset(), "a", "--dry-run")
	if err != nil {
		t.Fatal(err)
	}
	cmdtest.Contains(t, out,
		"shoot/ns/s1 cannot move: ",
		"3 shoot(s) on seed/a: 0 would move, 2 cannot move, 1 stay (dry run)\n",
	)
}

func TestWaitFollowsShootsUntilTheyMoved(t *testing.T) {
	graft := fake.NewSimpleClientset(landscapeObjects()...)
	kube := kubefake.NewSimpleClientset(lease(time.Now(), 3600))
	var once sync.Once
	drained := make(chan struct{})
	graft.PrependReactor("patch", "seeds", func(clienttesting.Action) (bool, runtime.Object, error) {
		once.Do(func() { close(drained) })
		return false, nil, nil
	})
	// Play the descheduler and the scheduler once the seed is tainted.
	moveErr := make(chan error, 1)
	go func() {
		<-drained
		moveErr <- moveShoots(graft, map[string]string{"s1": "", "s2": "c"}, map[string]string{"s1": "b"})
	}()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, _, err := run(ctx, graft, kube, "a")
	if err != nil {
		t.Fatalf("drain: %v\n%s", err, out)
	}
	if err := <-moveErr; err != nil {
		t.Fatal(err)
	}
	cmdtest.Contains(t, out,
		"seed/a cordoned\n",
		"seed/a marked for eviction (seed.gardener.cloud/unschedulable:NoExecute)\n",
		"shoot/ns/s3 tolerates seed.gardener.cloud/unschedulable:NoExecute and stays\n",
		"2 shoot(s) to move off seed/a\n",
		"shoot/ns/s1 moved to seed/b\n",
		"shoot/ns/s2 moved to seed/c\n",
		"2/2 shoots moved\n",
	)
	if !strings.HasSuffix(out, "seed/a drained\n") {
		t.Errorf("output does not end with the drained line:\n%s", out)
	}
	seed, _ := graft.CoreV1alpha1().Seeds().Get(context.Background(), "a", metav1.GetOptions{})
	if got := helper.FormatTaints(seed.Spec.Taints, ","); got != "seed.gardener.cloud/unschedulable:NoSchedule,seed.gardener.cloud/unschedulable:NoExecute" {
		t.Errorf("seed taints %s", got)
	}
}

// moveShoots sets spec.seedName of shoots in namespace ns, in two rounds.
func moveShoots(graft *fake.Clientset, rounds ...map[string]string) error {
	ctx := context.Background()
	for _, round := range rounds {
		for name, seed := range round {
			shoot, err := graft.CoreV1alpha1().Shoots("ns").Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			shoot.Spec.SeedName = nil
			if seed != "" {
				shoot.Spec.SeedName = ptr.To(seed)
			}
			if _, err := graft.CoreV1alpha1().Shoots("ns").Update(ctx, shoot, metav1.UpdateOptions{}); err != nil {
				return err
			}
		}
	}
	return nil
}

func TestWaitStopsWhenDeschedulerLeaseIsMissing(t *testing.T) {
	graft := fake.NewSimpleClientset(landscapeObjects()...)
	_, _, err := run(context.Background(), graft, kubefake.NewSimpleClientset(), "a")
	want := "graft-descheduler is not running: its leader-election Lease garden/graft-descheduler does not exist"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("error %v, want prefix %q", err, want)
	}
}

func TestWaitStopsWhenDeschedulerLeaseIsStale(t *testing.T) {
	graft := fake.NewSimpleClientset(landscapeObjects()...)
	kube := kubefake.NewSimpleClientset(lease(time.Now().Add(-time.Hour), 15))
	_, _, err := run(context.Background(), graft, kube, "a", "--descheduler-lease-namespace=garden")
	want := "graft-descheduler is not running: its leader-election Lease garden/graft-descheduler, held by descheduler-0, expired "
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("error %v, want prefix %q", err, want)
	}
}

func TestLeaseFlagsAreUsed(t *testing.T) {
	graft := fake.NewSimpleClientset(landscapeObjects()...)
	other := lease(time.Now().Add(-time.Hour), 15)
	other.Namespace, other.Name = "kube-system", "my-descheduler"
	_, _, err := run(context.Background(), graft, kubefake.NewSimpleClientset(other), "a",
		"--descheduler-lease-name=my-descheduler", "--descheduler-lease-namespace=kube-system")
	if err == nil || !strings.Contains(err.Error(), "Lease kube-system/my-descheduler, held by descheduler-0, expired") {
		t.Fatalf("error %v", err)
	}
}

func TestInterruptedWaitListsShootsLeftWithReasons(t *testing.T) {
	graft := fake.NewSimpleClientset(landscapeObjects()...)
	kube := kubefake.NewSimpleClientset(lease(time.Now(), 3600))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Interrupt once graftctl has looked at the Lease: it is then waiting.
	kube.PrependReactor("get", "leases", func(clienttesting.Action) (bool, runtime.Object, error) {
		cancel()
		return false, nil, nil
	})
	out, _, err := run(ctx, graft, kube, "a")
	if err == nil || err.Error() != "interrupted waiting for seed a to drain: 0/2 shoots moved, 2 left" {
		t.Fatalf("error %v\n%s", err, out)
	}
	// Each is said as the drain plan says it: b has room for one.
	cmdtest.Contains(t, out,
		"shoot/ns/s1 left: graft-descheduler moves it now, to seed/b: urgent: seed a has NoExecute taint seed.gardener.cloud/unschedulable:NoExecute that the shoot does not tolerate\n",
		"shoot/ns/s2 left: cannot move: no other seed fits: 0/3 seeds fit: current seed (1), no capacity (1), strategy (1)\n",
	)
}

func TestNoWaitOnlyTaints(t *testing.T) {
	graft := fake.NewSimpleClientset(landscapeObjects()...)
	out, _, err := run(context.Background(), graft, kubefake.NewSimpleClientset(), "a", "--wait=false")
	if err != nil {
		t.Fatal(err)
	}
	if want := "seed/a cordoned\nseed/a marked for eviction (seed.gardener.cloud/unschedulable:NoExecute)\n"; out != want {
		t.Errorf("output %q, want %q", out, want)
	}
	out, _, err = run(context.Background(), graft, kubefake.NewSimpleClientset(), "a", "--wait=false")
	if err != nil {
		t.Fatal(err)
	}
	if want := "seed/a already cordoned\nseed/a already marked for eviction (seed.gardener.cloud/unschedulable:NoExecute)\n"; out != want {
		t.Errorf("second drain output %q, want %q", out, want)
	}
}

func TestDrainArguments(t *testing.T) {
	graft := fake.NewSimpleClientset(landscapeObjects()...)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "exactly one seed name must be specified, got 0"},
		{[]string{"a", "b"}, "exactly one seed name must be specified, got 2"},
		{[]string{"a", "--timeout=-1s"}, "--timeout must not be negative"},
		{[]string{"missing", "--wait=false"}, `seeds.core.graft.dev "missing" not found`},
	} {
		if _, _, err := run(context.Background(), graft, kubefake.NewSimpleClientset(), tc.args...); err == nil || err.Error() != tc.want {
			t.Errorf("drain %q: error %v, want %q", tc.args, err, tc.want)
		}
	}
}

func TestLeaseStale(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	renew := &metav1.MicroTime{Time: now.Add(-10 * time.Second)}
	if stale, _ := leaseStale(renew, ptr.To[int32](15), now); stale {
		t.Error("lease renewed 10s ago with 15s duration reported stale")
	}
	if stale, why := leaseStale(renew, ptr.To[int32](5), now); !stale || why != "expired 5s ago (last renewed at 2026-01-01T11:59:50Z, lease duration 5s)" {
		t.Errorf("stale=%v why=%q", stale, why)
	}
	if stale, why := leaseStale(nil, ptr.To[int32](5), now); !stale || why != "was never renewed" {
		t.Errorf("stale=%v why=%q", stale, why)
	}
}

// A seed drained before: its drain taint's timeAdded, not the time of this
// command, is when the tolerations started to count.
func TestDryRunCountsTolerationsFromTimeAdded(t *testing.T) {
	added := time.Now().Add(-time.Hour).UTC().Truncate(time.Second)
	drainTaint := corev1alpha1.SeedTaint{Key: corev1alpha1.SeedTaintUnschedulable, Effect: corev1alpha1.TaintEffectNoExecute, TimeAdded: ptr.To(metav1.NewTime(added))}
	cordonTaint := corev1alpha1.SeedTaint{Key: corev1alpha1.SeedTaintUnschedulable, Effect: corev1alpha1.TaintEffectNoSchedule}
	twoHours := corev1alpha1.Toleration{Key: corev1alpha1.SeedTaintUnschedulable, Effect: corev1alpha1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](7200)}
	graft := fake.NewSimpleClientset(coretest.MakeCloudProfile("aws").Regions("eu-west-1").Obj(), coretest.MakeSeed("a").Taints(cordonTaint, drainTaint).Obj(), coretest.MakeSeed("b").Obj(),
		coretest.MakeShoot("ns", "s1").Seed("a").Tolerations(twoHours).Obj())
	out, _, err := run(context.Background(), graft, kubefake.NewSimpleClientset(), "a", "--dry-run")
	if err != nil {
		t.Fatal(err)
	}
	want := "shoot/ns/s1 would move to seed/b after its toleration ends at " + added.Add(2*time.Hour).Format(time.RFC3339) + "\n"
	if !strings.Contains(out, want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
}
