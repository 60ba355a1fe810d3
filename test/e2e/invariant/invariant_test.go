package invariant

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/test/e2e/landscape"
)

func small() *landscape.Landscape {
	return landscape.Generate(landscape.Spec{
		Scenario: "t", Providers: []string{"aws", "gcp"}, RegionsPerProvider: 1, SeedsPerRegion: 2, SeedCapacity: 2, Shoots: 4,
	})
}

func state(l *landscape.Landscape) Landscape {
	return Landscape{Seeds: l.Seeds, Shoots: l.Shoots, CloudProfiles: l.CloudProfiles}
}

func bind(shoot *corev1alpha1.Shoot, seed string) { shoot.Spec.SeedName = ptr.To(seed) }

func rules(vs []Violation) []Rule {
	var out []Rule
	for _, v := range vs {
		out = append(out, v.Rule)
	}
	return out
}

func TestCheck(t *testing.T) {
	t.Run("valid bindings", func(t *testing.T) {
		l := small()
		// Shoots alternate aws, gcp; seeds are t-aws-region-1-0/1, t-gcp-region-1-0/1.
		bind(l.Shoots[0], "t-aws-region-1-0")
		bind(l.Shoots[2], "t-aws-region-1-1")
		bind(l.Shoots[1], "t-gcp-region-1-0")
		if vs := Check(state(l), nil); len(vs) != 0 {
			t.Fatalf("violations %v, want none", vs)
		}
	})
	t.Run("wrong provider", func(t *testing.T) {
		l := small()
		bind(l.Shoots[0], "t-gcp-region-1-0")
		vs := Check(state(l), nil)
		if len(vs) != 1 || vs[0].Rule != RuleSeedFilters || !strings.Contains(vs[0].Message, "Provider") {
			t.Fatalf("violations %v, want one SeedFilters for the provider", vs)
		}
	})
	t.Run("unknown seed", func(t *testing.T) {
		l := small()
		bind(l.Shoots[0], "gone")
		if got := rules(Check(state(l), nil)); len(got) != 1 || got[0] != RuleUnknownSeed {
			t.Fatalf("rules %v, want UnknownSeed", got)
		}
	})
	t.Run("above allocatable", func(t *testing.T) {
		l := small()
		l.Seeds[0].Status.Allocatable = corev1.ResourceList{corev1alpha1.ResourceShoots: resource.MustParse("1")}
		bind(l.Shoots[0], l.Seeds[0].Name)
		bind(l.Shoots[2], l.Seeds[0].Name)
		got := rules(Check(state(l), nil))
		if len(got) != 1 || got[0] != RuleCapacity {
			t.Fatalf("rules %v, want Capacity once for the seed", got)
		}
	})
	t.Run("cordoned seed", func(t *testing.T) {
		l := small()
		seeds := map[string]*corev1alpha1.Seed{}
		for _, s := range l.Seeds {
			seeds[s.Name] = s
		}
		l.Seeds[0].Spec.Taints = []corev1alpha1.SeedTaint{{Key: corev1alpha1.SeedTaintUnschedulable, Effect: corev1alpha1.TaintEffectNoSchedule}}
		bind(l.Shoots[0], l.Seeds[0].Name)
		bind(l.Shoots[2], l.Seeds[0].Name)
		if vs := Check(state(l), AllowNoScheduleTaints(seeds)); len(vs) != 0 {
			t.Fatalf("violations %v, want none: shoots stay on a cordoned seed", vs)
		}
		if vs := Check(state(l), nil); len(vs) != 2 {
			t.Fatalf("without the exception: violations %v, want two", vs)
		}
		// Drained: untolerated NoExecute is never deliberate; a tolerating shoot
		// is not rejected at all.
		l.Seeds[0].Spec.Taints = []corev1alpha1.SeedTaint{{Key: corev1alpha1.SeedTaintUnschedulable, Effect: corev1alpha1.TaintEffectNoExecute}}
		l.Shoots[2].Spec.Tolerations = []corev1alpha1.Toleration{{Key: corev1alpha1.SeedTaintUnschedulable, TolerationSeconds: ptr.To[int64](60)}}
		vs := Check(state(l), AllowNoScheduleTaints(seeds))
		if len(vs) != 1 || vs[0].Shoot != "garden-t/"+l.Shoots[0].Name {
			t.Fatalf("violations %v, want one for the untolerating shoot only", vs)
		}
	})
}

func TestHistory(t *testing.T) {
	l := small()
	shoot := l.Shoots[0]
	key := "garden-t/" + shoot.Name
	h := NewHistory()
	observe := func(seed string, generation int64) {
		s := shoot.DeepCopy()
		s.Generation = generation
		if seed != "" {
			s.Spec.SeedName = ptr.To(seed)
		}
		h.Observe(s)
	}
	observe("", 1)
	observe("a", 2)
	observe("a", 2) // a status write
	if h.Binds(key) != 1 || len(h.Violations()) != 0 {
		t.Fatalf("binds %d, violations %v after one binding", h.Binds(key), h.Violations())
	}
	observe("", 3) // evicted
	observe("b", 4)
	if h.Binds(key) != 2 || h.Evictions(key) != 1 || len(h.Violations()) != 0 {
		t.Fatalf("binds %d evictions %d violations %v after a move through an eviction", h.Binds(key), h.Evictions(key), h.Violations())
	}
	observe("c", 5) // rebound over a binding
	if vs := h.Violations(); len(vs) != 1 || vs[0].Rule != RuleBoundOnce || !strings.Contains(vs[0].Message, "from seed b to c") {
		t.Fatalf("violations %v, want one BoundOnce from b to c", vs)
	}
	// A gap: the watch starts again and lists the shoot on another seed; no
	// verdict on what it did meanwhile, and later changes are judged again.
	h.Gap()
	resynced := shoot.DeepCopy()
	resynced.Spec.SeedName = ptr.To("d")
	h.Resync(resynced)
	observe("d", 7) // a status write
	if vs := h.Violations(); len(vs) != 1 || h.Gaps() != 1 {
		t.Fatalf("violations %v gaps %d after a resync, want the one from before and one gap", vs, h.Gaps())
	}
	observe("e", 8)
	if vs := h.Violations(); len(vs) != 2 {
		t.Fatalf("violations %v, want a second BoundOnce from d to e", vs)
	}
	h.Forget(shoot)
	observe("x", 9) // first seen with an unwatched past: not counted
	if h.Binds(key) != 0 {
		t.Fatalf("binds %d for a shoot first seen bound after unwatched changes", h.Binds(key))
	}
}

func TestCheckPending(t *testing.T) {
	l := small()
	for _, s := range l.Seeds[1:] {
		s.Status.Allocatable = corev1.ResourceList{corev1alpha1.ResourceShoots: resource.MustParse("0")}
	}
	l.Seeds[0].Status.Allocatable = corev1.ResourceList{corev1alpha1.ResourceShoots: resource.MustParse("1")}
	// Shoots 0 and 2 are aws: one takes the only aws slot, the other waits.
	bind(l.Shoots[0], l.Seeds[0].Name)
	got := CheckPending(state(l))
	// Shoot 2 (aws) and shoots 1 and 3 (gcp) cannot be placed but carry no lastOperation.
	if len(got) != 3 {
		t.Fatalf("violations %v, want 3 without lastOperation", got)
	}
	for _, i := range []int{1, 2, 3} {
		l.Shoots[i].Status.LastOperation = &corev1alpha1.LastOperation{Type: corev1alpha1.LastOperationTypeCreate, State: corev1alpha1.LastOperationStatePending, Description: "0/4 seeds fit"}
	}
	if got := CheckPending(state(l)); len(got) != 0 {
		t.Fatalf("violations %v, want none", got)
	}
	// Room appears: the pending aws shoot could be placed now.
	l.Seeds[0].Status.Allocatable = corev1.ResourceList{corev1alpha1.ResourceShoots: resource.MustParse("5")}
	got = CheckPending(state(l))
	if len(got) != 1 || got[0].Shoot != "garden-t/"+l.Shoots[2].Name || got[0].Seed != l.Seeds[0].Name {
		t.Fatalf("violations %v, want shoot 2 placeable on %s", got, l.Seeds[0].Name)
	}
}
