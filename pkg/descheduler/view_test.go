package descheduler

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/algorithm"
	"github.com/graft-dev/graft/pkg/coretest"
	"github.com/graft-dev/graft/pkg/descheduler/framework"
	"github.com/graft-dev/graft/pkg/taintclock"
)

// fullView is how a view was taken before seeds were ruled out from their
// own facts, kept as the oracle the incremental view is checked against: it
// clones the whole snapshot and copies the shoots of every named seed,
// counting the leaving ones from the shoots themselves.
func fullView(st *state, seedNames []string, now time.Time) *view {
	st.mu.Lock()
	defer st.mu.Unlock()
	v := &view{snapshot: st.snapshot.Clone(), seeds: map[string]*framework.SeedState{}}
	v.pending, v.waiting = st.queued()
	for _, name := range seedNames {
		seed, ok := st.snapshot.Seed(name)
		if !ok {
			continue
		}
		keys := sets.List(st.onSeed[name])
		shoots := make([]*v1alpha1.Shoot, 0, len(keys))
		deleting := 0
		for _, k := range keys {
			if s := st.shoots[k]; s.DeletionTimestamp == nil {
				shoots = append(shoots, s)
			} else {
				deleting++
			}
		}
		seen := maps.Clone(st.taintSeen[name])
		arrived := make(map[string]time.Time, len(keys))
		for _, k := range keys {
			arrived[k] = st.arrived[k].at
		}
		v.seeds[name] = &framework.SeedState{
			Seed:    seed,
			Shoots:  shoots,
			Usage:   st.snapshot.Usage(name),
			Leaving: st.leaving[name].Len() + deleting,
			Now:     now,
			TolerationStart: func(shoot *v1alpha1.Shoot, t v1alpha1.SeedTaint) time.Time {
				sighted, ok := seen[taintID(t)]
				if !ok {
					sighted = now
				}
				return taintclock.Start(t, sighted, arrived[algorithm.ShootKey(shoot)])
			},
		}
	}
	return v
}

// checkIndexes compares the state's per-seed indexes, which the event
// handlers keep up incrementally, with the same counted afresh from the
// shoots the state holds.
func checkIndexes(t *testing.T, st *state, step string) {
	t.Helper()
	st.mu.Lock()
	defer st.mu.Unlock()
	onSeed, leaving, deleting, usage := map[string]int{}, map[string]int{}, map[string]int{}, map[string]int{}
	for _, s := range st.shoots {
		if s.Spec.SeedName != nil {
			onSeed[*s.Spec.SeedName]++
			if s.DeletionTimestamp != nil {
				deleting[*s.Spec.SeedName]++
			}
		}
		if s.Status.SeedName != nil && (s.Spec.SeedName == nil || *s.Spec.SeedName != *s.Status.SeedName) {
			leaving[*s.Status.SeedName]++
		}
		for _, n := range algorithm.SeedNamesCountedFor(s) {
			usage[n]++
		}
	}
	lens := func(index map[string]sets.Set[string]) map[string]int {
		out := map[string]int{}
		for k, v := range index {
			out[k] = v.Len()
		}
		return out
	}
	if got := lens(st.onSeed); !maps.Equal(got, onSeed) {
		t.Fatalf("%s: shoots per seed %v, counted afresh %v", step, got, onSeed)
	}
	if got := lens(st.leaving); !maps.Equal(got, leaving) {
		t.Fatalf("%s: migrating away per seed %v, counted afresh %v", step, got, leaving)
	}
	if !maps.Equal(st.deleting, deleting) {
		t.Fatalf("%s: deleting per seed %v, counted afresh %v", step, st.deleting, deleting)
	}
	for _, n := range []string{"a", "b", "c", "gone"} {
		if st.snapshot.Usage(n) != usage[n] {
			t.Fatalf("%s: usage of %s %d, counted afresh %d", step, n, st.snapshot.Usage(n), usage[n])
		}
	}
}

// TestSeedIndexesFollowEvents: the per-seed indexes a view reads instead of
// the shoots (which shoots a seed hosts, how many migrate away, how many are
// being deleted) stay what the shoots say through adds, updates that move a
// shoot or start its deletion, deletes (also by tombstone key), a relist that
// delivers every shoot again and drops the vanished, the descheduler's own
// writes and the stale events the informer delivers after them.
func TestSeedIndexesFollowEvents(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	seeds := []string{"a", "b", "c", "gone"}
	st := newState()
	for _, n := range seeds[:3] {
		st.setSeed(nil, coretest.MakeSeed(n).Allocatable(2).Obj(), t0)
	}
	pick := func() *string {
		if i := rng.IntN(len(seeds) + 1); i < len(seeds) {
			return ptr.To(seeds[i])
		}
		return nil
	}
	// server is what the API server holds; rv its last resourceVersion.
	server := map[string]*v1alpha1.Shoot{}
	rv := 100
	next := func(name string) *v1alpha1.Shoot {
		rv++
		s := coretest.MakeShoot("garden-dev", name).Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Obj()
		s.ResourceVersion = strconv.Itoa(rv)
		s.Spec.SeedName, s.Status.SeedName = pick(), pick()
		if rng.IntN(5) == 0 {
			s.DeletionTimestamp = ptr.To(metav1.NewTime(t0))
		}
		if s.Spec.SeedName == nil && rng.IntN(2) == 0 {
			markEvicted(s, "a")
		}
		server[algorithm.ShootKey(s)] = s
		return s
	}
	for i := range 3000 {
		name := fmt.Sprintf("s%d", rng.IntN(12))
		key := "garden-dev/" + name
		var step string
		switch op := rng.IntN(10); {
		case op < 5:
			step = "add or update " + name
			st.setShoot(next(name), t0, false)
		case op < 7:
			step = "delete " + name
			delete(server, key)
			st.removeShoot(key)
		case op < 8:
			// The descheduler's own write lands first; the informer then
			// delivers an older version (an event it had not passed on
			// yet), which must change nothing, then the write itself.
			old, ok := server[key]
			if !ok {
				continue
			}
			step = "own write of " + name + ", then a stale event"
			own := next(name)
			st.setShoot(own, t0, true)
			checkIndexes(t, st, step)
			st.setShoot(old, t0, false)
			if st.shoots[key] != own {
				t.Fatalf("step %d: a stale event replaced the own write of %s", i, name)
			}
			st.setShoot(own, t0, false)
		case op < 9:
			step = "relist"
			for k := range st.shoots {
				if _, ok := server[k]; !ok {
					st.removeShoot(k)
				}
			}
			for _, s := range server {
				st.setShoot(s, t0, false)
			}
		default:
			step = "seed change"
			seed := coretest.MakeSeed(seeds[rng.IntN(3)]).Allocatable(int64(rng.IntN(4))).Obj()
			if rng.IntN(2) == 0 {
				seed.Spec.Taints = []v1alpha1.SeedTaint{drainTaint}
			}
			st.setSeed(nil, seed, t0)
		}
		checkIndexes(t, st, fmt.Sprintf("step %d (%s)", i, step))
		for k, s := range server {
			if st.shoots[k] != s {
				t.Fatalf("step %d (%s): the state holds %v for %s, the server %v", i, step, st.shoots[k], k, s)
			}
		}
		if len(st.shoots) != len(server) {
			t.Fatalf("step %d (%s): the state holds %d shoots, the server %d", i, step, len(st.shoots), len(server))
		}
	}
}

// randomLandscape returns a few seeds with random taints and allocatable
// shoots, and shoots bound, migrating, deleting, waiting or evicted on them
// with random tolerations, purposes and protection.
func randomLandscape(rng *rand.Rand) ([]*v1alpha1.Seed, []*v1alpha1.Shoot) {
	var seeds []*v1alpha1.Seed
	names := []string{}
	limited := v1alpha1.SeedTaint{Key: "maintenance", Effect: v1alpha1.TaintEffectNoExecute, TimeAdded: ptr.To(metav1.NewTime(t0.Add(-30 * time.Second)))}
	taintSets := [][]v1alpha1.SeedTaint{nil, nil, {drainTaint}, {limited}, {{Key: "noschedule"}}, {drainTaint, limited}}
	for i := range 2 + rng.IntN(5) {
		s := coretest.MakeSeed(fmt.Sprintf("seed-%d", i)).Allocatable(int64(rng.IntN(8)) - 1).Obj()
		s.ResourceVersion = "1"
		s.Spec.Taints = taintSets[rng.IntN(len(taintSets))]
		seeds = append(seeds, s)
		names = append(names, s.Name)
	}
	pick := func() *string {
		if i := rng.IntN(len(names) + 1); i < len(names) {
			return ptr.To(names[i])
		}
		return nil
	}
	tolerations := [][]v1alpha1.Toleration{
		nil, nil,
		{{Key: v1alpha1.SeedTaintUnschedulable}},
		{{Key: "maintenance", Effect: v1alpha1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](60)}},
		{{Key: "maintenance", Effect: v1alpha1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](10)}},
	}
	purposes := []v1alpha1.ShootPurpose{v1alpha1.ShootPurposeEvaluation, v1alpha1.ShootPurposeDevelopment, v1alpha1.ShootPurposeProduction}
	var shoots []*v1alpha1.Shoot
	for i := range rng.IntN(30) {
		s := coretest.MakeShoot("garden-dev", fmt.Sprintf("shoot-%02d", i)).Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Tolerations(tolerations[rng.IntN(len(tolerations))]...).Obj()
		s.ResourceVersion = strconv.Itoa(10 + i)
		s.CreationTimestamp = metav1.NewTime(t0.Add(-time.Duration(rng.IntN(100)) * time.Minute))
		s.Spec.Purpose = ptr.To(purposes[rng.IntN(len(purposes))])
		s.Spec.SeedName = pick()
		s.Status.SeedName = s.Spec.SeedName
		switch rng.IntN(8) {
		case 0:
			s.Status.SeedName = pick()
		case 1:
			s.DeletionTimestamp = ptr.To(metav1.NewTime(t0))
		case 2:
			s.Annotations = map[string]string{v1alpha1.AnnotationEvict: "false"}
		case 3:
			if s.Spec.SeedName == nil {
				markEvicted(s, names[0])
			}
		}
		shoots = append(shoots, s)
	}
	return seeds, shoots
}

// decisions is what a dry-run pass decided, as far as it shows: its Events
// in order (each would-be eviction with its reason and target, each
// requireFit hold-back), the seeds held back, and the budgets taken.
func decisions(d *Descheduler, rec *record.FakeRecorder) string {
	var b strings.Builder
	for len(rec.Events) > 0 {
		fmt.Fprintln(&b, <-rec.Events)
	}
	d.gate.mu.Lock()
	defer d.gate.mu.Unlock()
	fmt.Fprintf(&b, "held %v\nbudget %v total %d\n", sets.List(d.gate.waiting), d.gate.perSeed, d.gate.total)
	return b.String()
}

// TestPassDecidesAsTheFullView: on random landscapes and configurations, a
// pass that rules seeds out from their own facts and reads the per-seed
// indexes decides exactly as a pass over the full view (every seed's shoots
// copied, the whole snapshot cloned), pass after pass, as evictions pile up
// as pending.
func TestPassDecidesAsTheFullView(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	// Dry-run evictions are logged; the comparison reads the Events.
	ctx := klog.NewContext(context.Background(), klog.Logger{})
	acted := 0
	for round := range 300 {
		seeds, shoots := randomLandscape(rng)
		config := func() *configv1alpha1.DeschedulerConfiguration {
			r := rand.New(rand.NewPCG(uint64(round), 1))
			noExec := configv1alpha1.DeschedulerPlugin{Name: configv1alpha1.DeschedulerPluginNoExecuteTaints}
			if r.IntN(3) == 0 {
				noExec.Args.Raw = []byte(`{"taintKeys":["maintenance"]}`)
			}
			over := configv1alpha1.DeschedulerPlugin{Name: configv1alpha1.DeschedulerPluginOverCapacity}
			if r.IntN(3) == 0 {
				over.Args.Raw = []byte(`{"force":true}`)
			}
			return &configv1alpha1.DeschedulerConfiguration{
				RequireFit:          ptr.To(r.IntN(2) == 0),
				MaxEvictionsPerSeed: ptr.To(int32(1 + r.IntN(4))),
				MaxPendingEvicted:   ptr.To(int32(r.IntN(6))),
				Plugins:             []configv1alpha1.DeschedulerPlugin{noExec, over},
			}
		}
		newRec, oldRec := record.NewFakeRecorder(1000), record.NewFakeRecorder(1000)
		incremental := dryRunDescheduler(t, config(), newRec, seeds, shoots)
		oracle := dryRunDescheduler(t, config(), oldRec, seeds, shoots)
		names := incremental.state.seedNames()
		for pass := range 2 {
			incremental.pass(ctx, names, false)
			oracle.passOver(ctx, fullView(oracle.state, names, oracle.clock.Now()), false)
			got, want := decisions(incremental, newRec), decisions(oracle, oldRec)
			if got != want {
				t.Fatalf("round %d, pass %d: the pass decided\n%s\nthe full view decided\n%s", round, pass, got, want)
			}
			if strings.Contains(want, "Dry run") {
				acted++
			}
		}
	}
	if acted == 0 {
		t.Fatal("no pass evicted anything: the comparison was not exercised")
	}
}

// TestViewTakesOnlySeedsThatNeedAction: a view copies the shoots of the
// seeds some plugin may act on (tainted, over their allocatable shoots, or
// with a NoExecute taint still to be stamped) and of no other.
func TestViewTakesOnlySeedsThatNeedAction(t *testing.T) {
	unstamped := v1alpha1.SeedTaint{Key: "other", Effect: v1alpha1.TaintEffectNoExecute}
	stamped := v1alpha1.SeedTaint{Key: "maintenance", Effect: v1alpha1.TaintEffectNoExecute, TimeAdded: ptr.To(metav1.NewTime(t0))}
	full := coretest.MakeSeed("full").Allocatable(1).Obj()
	seeds := []*v1alpha1.Seed{
		coretest.MakeSeed("idle").Allocatable(5).Obj(), coretest.MakeSeed("drained").Allocatable(-1).Taints(drainTaint).Obj(), full,
		coretest.MakeSeed("stamped-elsewhere").Allocatable(-1).Taints(stamped).Obj(), coretest.MakeSeed("unstamped-elsewhere").Allocatable(-1).Taints(unstamped).Obj(),
	}
	var shoots []*v1alpha1.Shoot
	for _, s := range seeds {
		for i := range 2 {
			shoots = append(shoots, coretest.MakeShoot("garden-dev", fmt.Sprintf("%s-%d", s.Name, i)).Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Seed(s.Name).Obj())
		}
	}
	// Two on a seed allowing one, one of them leaving: no excess.
	leaving := shoots[5].DeepCopy()
	leaving.DeletionTimestamp = ptr.To(metav1.NewTime(t0))
	shoots[5] = leaving
	cfg := &configv1alpha1.DeschedulerConfiguration{Plugins: []configv1alpha1.DeschedulerPlugin{
		{Name: configv1alpha1.DeschedulerPluginNoExecuteTaints, Args: runtime.RawExtension{Raw: []byte(`{"taintKeys":["` + v1alpha1.SeedTaintUnschedulable + `"]}`)}},
		{Name: configv1alpha1.DeschedulerPluginOverCapacity},
	}}
	d := dryRunDescheduler(t, cfg, &record.FakeRecorder{}, seeds, shoots)
	v := d.state.takeView(d.state.seedNames(), t0)
	if got, want := sets.List(sets.KeySet(v.seeds)), []string{"drained", "unstamped-elsewhere"}; !slices.Equal(got, want) {
		t.Errorf("the view took %v, want %v", got, want)
	}
	// The shoot being deleted stops counting as leaving: now the seed is full.
	d.state.setShoot(coretest.MakeShoot("garden-dev", "full-1-back").Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Seed("full").Obj(), t0, false)
	v = d.state.takeView(d.state.seedNames(), t0)
	if got := v.seeds["full"]; got == nil || got.Usage != 3 || got.Leaving != 1 || len(got.Shoots) != 2 {
		t.Fatalf("the view of the full seed is %+v, want usage 3, 1 leaving and its 2 live shoots", got)
	}
	if v.snapshot == nil || v.snapshot.Usage("full") != 3 {
		t.Error("a view with seeds to act on has no snapshot of the counts")
	}
}
