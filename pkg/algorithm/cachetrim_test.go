package algorithm

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/component/cachetrim"
	"github.com/graft-dev/graft/pkg/coretest"
)

// TestCacheTrimKeepsDecisions runs the algorithm on a landscape as the API
// server serves it (every object with the managed fields of the managers
// that wrote it) and on the same landscape as the daemons' informers store
// it (through cachetrim.Transform), and requires every answer the daemons
// ask for to be the same: decisions and explanations for pending and evicted
// shoots, where a bound shoot would go (the descheduler's requireFit), its
// NoExecute status, usage, and the reservations for waiting shoots.
func TestCacheTrimKeepsDecisions(t *testing.T) {
	served := newTrimLandscape(rand.New(rand.NewPCG(7, 11)))
	cached := served.deepCopy()
	cached.each(func(obj any) {
		if _, err := cachetrim.Transform(obj); err != nil {
			t.Fatal(err)
		}
	})
	// The landscape must carry what the transform drops, or this proves nothing.
	if len(served.bound[0].ManagedFields) == 0 || len(cached.bound[0].ManagedFields) != 0 {
		t.Fatalf("managed fields: %d served, %d cached; want some served and none cached", len(served.bound[0].ManagedFields), len(cached.bound[0].ManagedFields))
	}

	requireSameScheduling(t, served, cached)
	a, b := served.snapshot(), cached.snapshot()
	for _, cfg := range trimConfigs {
		inA := Inputs{CloudProfile: served.profile, RegionConfigMap: served.regions, Config: cfg}
		inB := Inputs{CloudProfile: cached.profile, RegionConfigMap: cached.regions, Config: cfg}
		firstSeen := func(v1alpha1.SeedTaint) time.Time { return time.Unix(1000, 0) }
		for i, shoot := range served.bound {
			seed := *shoot.Spec.SeedName
			ta, ea := FitsElsewhere(shoot, a, inA, seed)
			tb, eb := FitsElsewhere(cached.bound[i], b, inB, seed)
			if ta != tb || fmt.Sprint(ea) != fmt.Sprint(eb) {
				t.Errorf("%s, %v: served fits elsewhere (%q, %v), cached (%q, %v)", shoot.Name, cfg, ta, ea, tb, eb)
			}
			seedA, _ := a.Seed(seed)
			seedB, _ := b.Seed(seed)
			if na, nb := CheckNoExecute(shoot, seedA, firstSeen), CheckNoExecute(cached.bound[i], seedB, firstSeen); !reflect.DeepEqual(na, nb) {
				t.Errorf("%s: NoExecute status %+v served, %+v cached", shoot.Name, na, nb)
			}
			if ca, cb := SeedNamesCountedFor(shoot), SeedNamesCountedFor(cached.bound[i]); !reflect.DeepEqual(ca, cb) {
				t.Errorf("%s: counted on %v served, %v cached", shoot.Name, ca, cb)
			}
		}
	}
}

// TestUnboundTrimKeepsSchedulingDecisions is TestCacheTrimKeepsDecisions
// for graft-scheduler's informers (cachetrim.Unbound): bound shoots cached
// as their placement alone must leave every answer the scheduler asks for
// the same.
func TestUnboundTrimKeepsSchedulingDecisions(t *testing.T) {
	served := newTrimLandscape(rand.New(rand.NewPCG(7, 11)))
	cached := served.deepCopy()
	trim := func(obj any) any {
		out, err := cachetrim.Unbound(obj)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	for i := range cached.seeds {
		cached.seeds[i] = trim(cached.seeds[i]).(*v1alpha1.Seed)
	}
	for i := range cached.bound {
		cached.bound[i] = trim(cached.bound[i]).(*v1alpha1.Shoot)
	}
	for i := range cached.pending {
		cached.pending[i] = trim(cached.pending[i]).(*v1alpha1.Shoot)
	}
	cached.profile = trim(cached.profile).(*v1alpha1.CloudProfile)
	cached.regions = trim(cached.regions).(*corev1.ConfigMap)
	// The bound shoots must have lost what the placement does not need,
	// the pending ones nothing but managed fields, or this proves nothing.
	if b := cached.bound[0]; b.Spec.Provider.Type != "" || served.bound[0].Spec.Provider.Type == "" || b.Labels != nil {
		t.Fatalf("a bound shoot cached with provider %q and labels %v: want only its placement, region and creation", b.Spec.Provider.Type, b.Labels)
	}
	if p := cached.pending[0]; p.Spec.Region != served.pending[0].Spec.Region || len(p.ManagedFields) != 0 {
		t.Fatalf("a pending shoot cached with region %q and %d managers: want it whole but its managed fields", p.Spec.Region, len(p.ManagedFields))
	}
	requireSameScheduling(t, served, cached)
}

// trimConfigs are the algorithm configurations the trim tests compare under.
var trimConfigs = []Config{
	{Strategy: StrategySameRegion},
	{Strategy: StrategyMinimalDistance},
	{Strategy: StrategyMinimalDistance, ScoreWeights: map[ScorePlugin]int32{ScorePluginLeastAllocated: 3, ScorePluginMinimalDistance: 1, ScorePluginPreferNoSchedule: 1}},
}

// requireSameScheduling requires the answers graft-scheduler asks for to be
// the same on both landscapes: every seed's usage, and under each of
// trimConfigs the decisions and explanations for pending and evicted shoots
// and the reservations for waiting shoots.
func requireSameScheduling(t *testing.T, served, cached *trimLandscape) {
	t.Helper()
	a, b := served.snapshot(), cached.snapshot()
	for _, seed := range served.seeds {
		if a.Usage(seed.Name) != b.Usage(seed.Name) {
			t.Errorf("usage of %s: %d served, %d cached", seed.Name, a.Usage(seed.Name), b.Usage(seed.Name))
		}
	}
	for _, cfg := range trimConfigs {
		inA := Inputs{CloudProfile: served.profile, RegionConfigMap: served.regions, Config: cfg}
		inB := Inputs{CloudProfile: cached.profile, RegionConfigMap: cached.regions, Config: cfg}
		for i, shoot := range served.pending {
			sa, ea := Schedule(shoot, a, inA)
			sb, eb := Schedule(cached.pending[i], b, inB)
			if sa != sb || fmt.Sprint(ea) != fmt.Sprint(eb) {
				t.Errorf("%s, %v: served decides (%q, %v), cached (%q, %v)", shoot.Name, cfg, sa, ea, sb, eb)
			}
			var xa, xb bytes.Buffer
			_ = FormatExplanation(&xa, Explain(shoot, a, inA))
			_ = FormatExplanation(&xb, Explain(cached.pending[i], b, inB))
			if xa.String() != xb.String() {
				t.Errorf("%s, %v: explanations differ:\nserved:\n%s\ncached:\n%s", shoot.Name, cfg, xa.String(), xb.String())
			}
		}
		ra, rb := a.Clone(), b.Clone()
		ReserveForWaiting(ra, served.pending, func(*v1alpha1.Shoot) (Inputs, error) { return inA, nil })
		ReserveForWaiting(rb, cached.pending, func(*v1alpha1.Shoot) (Inputs, error) { return inB, nil })
		for _, seed := range served.seeds {
			if ra.Usage(seed.Name) != rb.Usage(seed.Name) {
				t.Errorf("%v: usage of %s after reserving for waiting shoots: %d served, %d cached", cfg, seed.Name, ra.Usage(seed.Name), rb.Usage(seed.Name))
			}
		}
	}
}

// trimLandscape is a landscape's objects as the API server serves them:
// the seeds of the scheduling benchmark (some now with NoExecute taints),
// shoots bound to them (some migrating, some being deleted, some tolerating
// taints for a while), pending and evicted shoots, a cloud profile and a
// region ConfigMap, each with the managed fields of those who wrote it.
type trimLandscape struct {
	seeds          []*v1alpha1.Seed
	bound, pending []*v1alpha1.Shoot
	profile        *v1alpha1.CloudProfile
	regions        *corev1.ConfigMap
}

func newTrimLandscape(rng *rand.Rand) *trimLandscape {
	snap, pending, _ := benchLandscape(40, 800)
	l := &trimLandscape{profile: coretest.MakeCloudProfile("aws").Obj()}
	for i, s := range snap.Seeds() {
		seed := s.DeepCopy()
		if i%5 == 0 {
			seed.Spec.Taints = append(seed.Spec.Taints, v1alpha1.SeedTaint{
				Key: v1alpha1.SeedTaintUnschedulable, Effect: v1alpha1.TaintEffectNoExecute, TimeAdded: &metav1.Time{Time: time.Unix(900, 0)}})
		}
		l.seeds = append(l.seeds, seed)
	}
	for i := range 400 {
		seed := l.seeds[rng.IntN(len(l.seeds))]
		shoot := coretest.MakeShoot("garden-dev", fmt.Sprintf("bound-%03d", i)).Provider(seed.Spec.Provider.Type, seed.Spec.Provider.Region).Seed(seed.Name).StatusSeed(seed.Name).Obj()
		shoot.Namespace = fmt.Sprintf("garden-p%02d", i%30)
		shoot.Labels = map[string]string{"project": shoot.Namespace}
		shoot.Status.Networking = &v1alpha1.NetworkingStatus{Nodes: []string{"10.180.0.0/16"}, Pods: []string{"100.96.0.0/11"}}
		switch rng.IntN(8) {
		case 0:
			shoot.Status.SeedName = ptr.To(l.seeds[rng.IntN(len(l.seeds))].Name) // migrating
		case 1:
			shoot.DeletionTimestamp = &metav1.Time{Time: time.Unix(2000, 0)}
		case 2:
			coretest.WrapShoot(shoot).Tolerate(v1alpha1.SeedTaintUnschedulable, nil, v1alpha1.TaintEffectNoExecute, ptr.To(int64(300)))
		case 3:
			coretest.WrapShoot(shoot).Tolerate(v1alpha1.SeedTaintUnschedulable, nil, "", nil)
		}
		coretest.WrapShoot(shoot).Purpose([]v1alpha1.ShootPurpose{v1alpha1.ShootPurposeEvaluation, v1alpha1.ShootPurposeProduction, v1alpha1.ShootPurposeTesting}[rng.IntN(3)])
		l.bound = append(l.bound, shoot)
	}
	for i, shoot := range pending {
		l.pending = append(l.pending, shoot)
		evicted := shoot.DeepCopy()
		evicted.Name = fmt.Sprintf("evicted-%02d", i)
		evicted.Annotations = map[string]string{
			v1alpha1.AnnotationDescheduledFrom:   l.seeds[rng.IntN(len(l.seeds))].Name,
			v1alpha1.AnnotationDescheduledReason: "NoExecuteTaints: drained",
		}
		evicted.Status.LastOperation = &v1alpha1.LastOperation{Type: v1alpha1.LastOperationTypeMigrate, State: v1alpha1.LastOperationStatePending, Description: "evicted"}
		coretest.WrapShoot(evicted).Tolerate(v1alpha1.SeedTaintUnschedulable, nil, v1alpha1.TaintEffectNoExecute, ptr.To(int64(60)))
		l.pending = append(l.pending, evicted)
	}
	l.regions = coretest.RegionConfigMap("garden", "regions", "aws", map[string]string{
		"eu-west-1": "eu-west-2: 10\neu-central-1: 20\nus-east-1: 100\n",
		"us-east-1": "us-east-2: 10\nus-west-1: 50\n",
	})
	l.each(func(obj any) { writtenBy(obj.(metav1.Object)) })
	return l
}

// writtenBy gives an object the managed fields of a user's server-side
// apply of its spec, an update of graft-scheduler and a status update of the
// seed's agent.
func writtenBy(obj metav1.Object) {
	now := metav1.NewTime(time.Unix(1000, 0))
	obj.SetManagedFields([]metav1.ManagedFieldsEntry{
		{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "core.graft.dev/v1alpha1", Time: &now, FieldsType: "FieldsV1",
			FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:labels":{"f:project":{}}},"f:spec":{"f:cloudProfile":{"f:kind":{},"f:name":{}},"f:networking":{"f:nodes":{},"f:pods":{},"f:services":{}},"f:provider":{"f:type":{}},"f:purpose":{},"f:region":{}}}`)}},
		{Manager: "graft-scheduler", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "core.graft.dev/v1alpha1", Time: &now, FieldsType: "FieldsV1",
			FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:spec":{"f:seedName":{}}}`)}},
		{Manager: "gardenlet", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "core.graft.dev/v1alpha1", Time: &now, FieldsType: "FieldsV1", Subresource: "status",
			FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:status":{"f:capacity":{"f:shoots":{}},"f:lastOperation":{".":{},"f:description":{},"f:lastUpdateTime":{},"f:progress":{},"f:state":{},"f:type":{}},"f:networking":{".":{},"f:nodes":{},"f:pods":{}},"f:seedName":{}}}`)}},
	})
}

// each calls fn with every object of the landscape.
func (l *trimLandscape) each(fn func(any)) {
	for _, s := range l.seeds {
		fn(s)
	}
	for _, s := range l.bound {
		fn(s)
	}
	for _, s := range l.pending {
		fn(s)
	}
	fn(l.profile)
	fn(l.regions)
}

func (l *trimLandscape) deepCopy() *trimLandscape {
	out := &trimLandscape{profile: l.profile.DeepCopy(), regions: l.regions.DeepCopy()}
	for _, s := range l.seeds {
		out.seeds = append(out.seeds, s.DeepCopy())
	}
	for _, s := range l.bound {
		out.bound = append(out.bound, s.DeepCopy())
	}
	for _, s := range l.pending {
		out.pending = append(out.pending, s.DeepCopy())
	}
	return out
}

func (l *trimLandscape) snapshot() *Snapshot { return snapshotOf(l.seeds, l.bound...) }
