package main

import (
	"fmt"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/controlplane"
	"github.com/graft-dev/graft/test/e2e/landscapegen"
	"github.com/graft-dev/graft/test/invariant"
)

// observedGarden returns a checker that has seen two seeds of one region and their
// cloud profile, and a pending shoot for that region.
func observedGarden(t *testing.T) (*checker, *landscapegen.Landscape, *corev1alpha1.Shoot) {
	t.Helper()
	l := landscapegen.Generate(landscapegen.Spec{Scenario: "chaos", Providers: []string{"aws"}, RegionsPerProvider: 1, SeedsPerRegion: 2, SeedCapacity: 5})
	c := newChecker(nil, 90*time.Second, t.Logf, nil)
	for i, s := range l.Seeds {
		s.ResourceVersion = "1" + string(rune('0'+i))
		c.observe(invariant.KindSeed, s, false)
	}
	l.CloudProfiles[0].ResourceVersion = "5"
	c.observe(invariant.KindCloudProfile, l.CloudProfiles[0], false)
	shoot := landscapegen.Shoot(l.Spec, "s-0000", "aws", landscapegen.Region("aws", 0), corev1alpha1.ShootPurposeEvaluation, false)
	shoot.ResourceVersion = "20"
	return c, l, shoot
}

func rules(c *checker) []invariant.Rule {
	var out []invariant.Rule
	for _, v := range c.Violations() {
		out = append(out, v.Rule)
	}
	return out
}

func TestPendingTooLong(t *testing.T) {
	c, _, shoot := observedGarden(t)
	c.observe(invariant.KindShoot, shoot, false)
	t0 := time.Now()
	c.judgeState(t0)
	c.judgeState(t0.Add(89 * time.Second))
	if got := rules(c); len(got) != 0 {
		t.Fatalf("within the bound: %v", got)
	}
	c.judgeState(t0.Add(91 * time.Second))
	if got := rules(c); !slices.Equal(got, []invariant.Rule{rulePending}) {
		t.Fatalf("past the bound: got %v, want one %s", got, rulePending)
	}
}

func TestStayedOnNoExecute(t *testing.T) {
	for _, tc := range []struct {
		name        string
		tolerations []corev1alpha1.Toleration
		want        []invariant.Rule
	}{
		{"untolerated", nil, []invariant.Rule{ruleMustLeave}},
		{"tolerated", []corev1alpha1.Toleration{{Key: "k"}}, nil},
		{"tolerated for longer than the run looks", []corev1alpha1.Toleration{{Key: "k", TolerationSeconds: ptr.To[int64](3600)}}, nil},
		{"tolerated for a while", []corev1alpha1.Toleration{{Key: "k", TolerationSeconds: ptr.To[int64](1)}}, []invariant.Rule{ruleMustLeave}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, l, shoot := observedGarden(t)
			shoot.Spec.SeedName = ptr.To(l.Seeds[0].Name)
			shoot.Spec.Tolerations = tc.tolerations
			c.observe(invariant.KindShoot, shoot, false)
			seed := l.Seeds[0].DeepCopy()
			seed.ResourceVersion = "30"
			seed.Spec.Taints = []corev1alpha1.SeedTaint{{Key: "k", Effect: corev1alpha1.TaintEffectNoExecute, TimeAdded: ptr.To(metav1.Now())}}
			c.observe(invariant.KindSeed, seed, false)
			t0 := time.Now().Add(2 * time.Second)
			c.judgeState(t0)
			c.judgeState(t0.Add(91 * time.Second))
			if got := rules(c); !slices.Equal(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestMoveWithoutReason(t *testing.T) {
	for _, tc := range []struct {
		name        string
		annotations map[string]string
		want        []invariant.Rule
	}{
		{"eviction", map[string]string{corev1alpha1.AnnotationDescheduledFrom: "chaos-aws-region-1-0", corev1alpha1.AnnotationDescheduledReason: "a taint"}, nil},
		{"no annotations", nil, []invariant.Rule{ruleNoReason}},
		{"names another seed", map[string]string{corev1alpha1.AnnotationDescheduledFrom: "elsewhere", corev1alpha1.AnnotationDescheduledReason: "a taint"}, []invariant.Rule{ruleNoReason}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, l, shoot := observedGarden(t)
			shoot.Spec.SeedName = ptr.To(l.Seeds[0].Name)
			c.observe(invariant.KindShoot, shoot, false)
			evicted := shoot.DeepCopy()
			evicted.ResourceVersion = "21"
			evicted.Spec.SeedName = nil
			evicted.Annotations = tc.annotations
			c.observe(invariant.KindShoot, evicted, false)
			if got := rules(c); !slices.Equal(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
	c, l, shoot := observedGarden(t)
	shoot.Spec.SeedName = ptr.To(l.Seeds[0].Name)
	c.observe(invariant.KindShoot, shoot, false)
	moved := shoot.DeepCopy()
	moved.ResourceVersion = "22"
	moved.Spec.SeedName = ptr.To(l.Seeds[1].Name)
	c.observe(invariant.KindShoot, moved, false)
	if got := rules(c); !slices.Equal(got, []invariant.Rule{ruleNoReason}) {
		t.Fatalf("seed to seed: got %v, want one %s", got, ruleNoReason)
	}
	// An older state brought by a list does not count as a change.
	c2, _, _ := observedGarden(t)
	c2.observe(invariant.KindShoot, moved, false)
	c2.observe(invariant.KindShoot, shoot, false)
	if got := rules(c2); len(got) != 0 {
		t.Fatalf("older state: %v", got)
	}
}

func TestLostShoot(t *testing.T) {
	c, _, shoot := observedGarden(t)
	k := shoot.Namespace + "/" + shoot.Name
	c.Created(k)
	c.observe(invariant.KindShoot, shoot, false)
	c.Deleted(k)
	c.shootDeleted(shoot)
	if got := rules(c); len(got) != 0 {
		t.Fatalf("deleted by the run: %v", got)
	}
	other := shoot.DeepCopy()
	other.Name = "s-0001"
	c.Created(other.Namespace + "/" + other.Name)
	c.observe(invariant.KindShoot, other, false)
	c.shootDeleted(other)
	if got := rules(c); !slices.Equal(got, []invariant.Rule{ruleLost}) {
		t.Fatalf("deleted by someone else: got %v, want one %s", got, ruleLost)
	}
	never := "garden-chaos/s-0002"
	c.mu.Lock()
	c.created[never] = time.Now().Add(-time.Minute)
	c.mu.Unlock()
	c.judgeState(time.Now())
	if got := rules(c); !slices.Equal(got, []invariant.Rule{ruleLost, ruleLost}) {
		t.Fatalf("never seen: got %v, want two %s", got, ruleLost)
	}
}

// A shoot evicted more than three times within a minute moves back and
// forth: a violation, reported once. Three evictions, or four spread over
// more than a minute, are not.
func TestEvictedTooOften(t *testing.T) {
	c, l, shoot := observedGarden(t)
	k := shoot.Namespace + "/" + shoot.Name
	t0 := time.Now()
	c.mu.Lock()
	for i := range 3 {
		c.evictedLocked(k, l.Seeds[i%2].Name, "a taint", t0.Add(time.Duration(i)*10*time.Second))
	}
	c.mu.Unlock()
	if got := rules(c); len(got) != 0 {
		t.Fatalf("three evictions within a minute: %v", got)
	}
	c.mu.Lock()
	c.evictedLocked(k, l.Seeds[1].Name, "a taint", t0.Add(70*time.Second))
	c.mu.Unlock()
	if got := rules(c); len(got) != 0 {
		t.Fatalf("four evictions over more than a minute: %v", got)
	}
	c.mu.Lock()
	c.evictedLocked(k, l.Seeds[0].Name, "a taint", t0.Add(71*time.Second))
	c.evictedLocked(k, l.Seeds[1].Name, "a taint", t0.Add(72*time.Second))
	c.mu.Unlock()
	if got := rules(c); !slices.Equal(got, []invariant.Rule{ruleLoop}) {
		t.Fatalf("got %v, want one %s", got, ruleLoop)
	}
	if perMinute, most, total := c.evictionSpread(); perMinute != 4 || most != k || total != 6 {
		t.Errorf("spread = %d per minute (%s), %d in all; want 4 (%s) and 6", perMinute, most, total, k)
	}

	// Through observe: evicted and bound four times in a row.
	c, l, shoot = observedGarden(t)
	rv := 20
	next := func(seed string) {
		s := shoot.DeepCopy()
		rv++
		s.ResourceVersion = fmt.Sprint(rv)
		s.Annotations = map[string]string{corev1alpha1.AnnotationDescheduledFrom: seed, corev1alpha1.AnnotationDescheduledReason: "a taint"}
		if seed == "" {
			s.Spec.SeedName = nil
		} else {
			s.Spec.SeedName = ptr.To(seed)
		}
		c.observe(invariant.KindShoot, s, false)
	}
	a, b := l.Seeds[0].Name, l.Seeds[1].Name
	for _, seed := range []string{a, "", b, "", a, "", b, ""} {
		if seed == "" {
			// The eviction names the seed the shoot left.
			c.mu.Lock()
			from := c.seedOf[shoot.Namespace+"/"+shoot.Name]
			c.mu.Unlock()
			s := shoot.DeepCopy()
			rv++
			s.ResourceVersion = fmt.Sprint(rv)
			s.Spec.SeedName = nil
			s.Annotations = map[string]string{corev1alpha1.AnnotationDescheduledFrom: from, corev1alpha1.AnnotationDescheduledReason: "a taint"}
			c.observe(invariant.KindShoot, s, false)
			continue
		}
		next(seed)
	}
	if got := rules(c); !slices.Equal(got, []invariant.Rule{ruleLoop}) {
		t.Fatalf("four evictions observed at once: got %v, want one %s", got, ruleLoop)
	}
}

// TestDeferrableMoveOutsideWindow: a move that can wait is judged by its
// own record against the shoot's window and the drain's deadline; a live
// one and an urgent one may go at any time.
func TestDeferrableMoveOutsideWindow(t *testing.T) {
	at := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name   string
		window [2]string
		reason string
		live   bool
		// declared is the run's chaosLiveGardenletVersions.
		declared []string
		want     []invariant.Rule
	}{
		{"over capacity outside the window", [2]string{"180000+0000", "190000+0000"}, "OverCapacity: seed a holds 8 shoots", false, nil, []invariant.Rule{ruleWindow}},
		{"over capacity in the window", [2]string{"113000+0000", "123000+0000"}, "OverCapacity: seed a holds 8 shoots", false, nil, nil},
		{"a drain before its deadline", [2]string{"180000+0000", "190000+0000"}, "NoExecuteTaints: seed a has NoExecute taint x, drained in maintenance windows until 2026-11-29T13:00:00Z", false, nil, []invariant.Rule{ruleWindow}},
		{"a drain at its deadline", [2]string{"180000+0000", "190000+0000"}, "NoExecuteTaints: seed a has NoExecute taint x, drained in maintenance windows until 2026-11-29T12:00:00Z", false, nil, nil},
		{"live intent without evidence", [2]string{"180000+0000", "190000+0000"}, "OverCapacity: seed a holds 8 shoots", true, nil, []invariant.Rule{ruleWindow}},
		{"live between declared gardenlets", [2]string{"180000+0000", "190000+0000"}, "OverCapacity: seed a holds 8 shoots", true, []string{controlplane.GardenerVersion}, nil},
		{"urgent", [2]string{"180000+0000", "190000+0000"}, "NoExecuteTaints: seed a has NoExecute taint x", false, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			declared := chaosLiveGardenletVersions
			chaosLiveGardenletVersions = tc.declared
			t.Cleanup(func() { chaosLiveGardenletVersions = declared })
			c, l, shoot := observedGarden(t)
			shoot.Spec.SeedName = ptr.To(l.Seeds[0].Name)
			shoot.Spec.Maintenance = &corev1alpha1.Maintenance{TimeWindow: &corev1alpha1.MaintenanceTimeWindow{Begin: tc.window[0], End: tc.window[1]}}
			c.observe(invariant.KindShoot, shoot, false)
			moved := shoot.DeepCopy()
			moved.ResourceVersion = "21"
			moved.Spec.SeedName = nil
			moved.Annotations = map[string]string{
				corev1alpha1.AnnotationDescheduledFrom:   l.Seeds[0].Name,
				corev1alpha1.AnnotationDescheduledReason: tc.reason,
				corev1alpha1.AnnotationEvictions:         fmt.Sprintf(`[{"seed":%q,"cause":"c","at":%q}]`, l.Seeds[0].Name, at.Format(time.RFC3339)),
			}
			if tc.live {
				moved.Annotations[corev1alpha1.AnnotationLiveMigrate] = "true"
			}
			c.observe(invariant.KindShoot, moved, false)
			if got := rules(c); !slices.Equal(got, tc.want) {
				t.Errorf("violations %v, want %v", got, tc.want)
			}
		})
	}
}

// An improving plugin's move of a shoot that moved before in the run (for
// any cause) is within the cool-down: a violation. A move for another cause
// after an improvement is not one.
func TestImprovedInCoolDown(t *testing.T) {
	c, l, shoot := observedGarden(t)
	k := shoot.Namespace + "/" + shoot.Name
	t0 := time.Now()
	c.mu.Lock()
	c.evictedLocked(k, l.Seeds[0].Name, "Rebalance: seed a holds 10 shoots", t0)
	c.evictedLocked(k, l.Seeds[1].Name, "NoExecuteTaints: a taint", t0.Add(time.Hour))
	c.mu.Unlock()
	if got := rules(c); len(got) != 0 {
		t.Fatalf("an improvement and then a taint's move: %v", got)
	}
	c.mu.Lock()
	c.evictedLocked(k, l.Seeds[0].Name, "ComeHome: the shoot's region is r", t0.Add(2*time.Hour))
	c.mu.Unlock()
	if got := rules(c); !slices.Equal(got, []invariant.Rule{ruleCoolDown}) {
		t.Fatalf("got %v, want one %s", got, ruleCoolDown)
	}
	if c.improved() != 2 {
		t.Errorf("improvements counted: %d, want 2", c.improved())
	}
}
