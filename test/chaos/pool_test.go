package main

import (
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/coretest"
	"github.com/graft-dev/graft/test/invariant"
)

// TestScaleOutWithoutNetDemand: a scale-out for growth while the pool's
// shoots were only recreated is a violation; one after genuine growth, or
// one for a full pool, is none.
func TestScaleOutWithoutNetDemand(t *testing.T) {
	now := time.Now()
	c := newChecker(nil, time.Minute, t.Logf, nil)
	c.pool = newPoolJudge()
	seed := coretest.MakeSeed(poolName+"-0").Label(poolLabel, poolName).Obj()
	seed.Status.Allocatable = corev1.ResourceList{corev1alpha1.ResourceShoots: resource.MustParse("4")}
	seed.ResourceVersion = "1"
	c.observe(invariant.KindSeed, seed, false)
	old := now.Add(-time.Hour)
	for i, name := range []string{"a", "b"} {
		s := coretest.MakeShoot("garden-chaos", name).Seed(seed.Name).Created(old).Obj()
		s.ResourceVersion = string(rune('2' + i))
		c.observe(invariant.KindShoot, s, false)
	}
	// The tenant deletes both and creates two new ones on the pool.
	for _, name := range []string{"a", "b"} {
		c.shootDeleted(coretest.MakeShoot("garden-chaos", name).Seed(seed.Name).Created(old).Obj())
	}
	for i, name := range []string{"c", "d"} {
		s := coretest.MakeShoot("garden-chaos", name).Seed(seed.Name).Created(now.Add(-time.Second)).Obj()
		s.ResourceVersion = string(rune('5' + i))
		c.observe(invariant.KindShoot, s, false)
	}
	c.samplePool(now)
	event := func(uid, message string, at time.Time) corev1.Event {
		return corev1.Event{ObjectMeta: metav1.ObjectMeta{UID: k8stypes.UID(uid)}, Message: message, Count: 1, LastTimestamp: metav1.NewTime(at)}
	}
	growth := "Scaled out from 1 to 2 replicas: at 60.0 new shoots an hour the 2 free slots are gone in 2m, within the horizon of 3m0s"
	c.judgePool([]corev1.Event{event("1", growth, now.Add(time.Second))})
	if got := rules(c); !slices.Equal(got, []invariant.Rule{rulePoolDemand}) {
		t.Fatalf("after recreations only: %v, want one %s", got, rulePoolDemand)
	}
	// The same Event seen again is judged once.
	c.judgePool([]corev1.Event{event("1", growth, now.Add(time.Second))})
	if n := len(rules(c)); n != 1 {
		t.Fatalf("%d violations after the same Event twice, want 1", n)
	}

	// A genuinely new shoot: growth.
	s := coretest.MakeShoot("garden-chaos", "e").Seed(seed.Name).Created(now.Add(-time.Second)).Obj()
	s.ResourceVersion = "9"
	c.observe(invariant.KindShoot, s, false)
	c.samplePool(now.Add(time.Second))
	c.judgePool([]corev1.Event{event("2", growth, now.Add(2*time.Second))})
	// A full pool names no growth: fill it.
	for i, name := range []string{"f"} {
		s := coretest.MakeShoot("garden-chaos", name).Seed(seed.Name).Created(old).Obj()
		s.ResourceVersion = "1" + string(rune('0'+i))
		c.observe(invariant.KindShoot, s, false)
	}
	c.samplePool(now.Add(2 * time.Second))
	c.judgePool([]corev1.Event{event("3", "Scaled out from 2 to 3 replicas: no free slot is left (4 of 4 used)", now.Add(3*time.Second))})
	if n := len(rules(c)); n != 1 {
		t.Fatalf("violations %v after genuine growth and a full pool, want only the first", rules(c))
	}
	if got := c.poolCounts(); got != "waiting=0 full=1 growth=2 unknown=0" {
		t.Errorf("counts %q", got)
	}
}
