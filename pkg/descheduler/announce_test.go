package descheduler

import (
	"fmt"
	"strings"
	"testing"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/coretest"
)

// TestOneSeedEventPerPass: a pass that evicts three shoots from a seed
// writes a Descheduled Event on each shoot and one on the seed naming all
// three with the reason.
func TestOneSeedEventPerPass(t *testing.T) {
	h := start(t, nil,
		coretest.MakeSeed("a").Allocatable(-1).Taints(drainTaint).Obj(), coretest.MakeSeed("b").Allocatable(-1).Obj(),
		coretest.MakeShoot("garden-dev", "x").Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Seed("a").Obj(), coretest.MakeShoot("garden-dev", "y").Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Seed("a").Obj(), coretest.MakeShoot("garden-dev", "z").Created(t0).Purpose(v1alpha1.ShootPurposeProduction).Seed("a").Obj(),
	)
	h.pass(t)
	var onShoots, onSeed []string
	for _, e := range h.events() {
		switch {
		case strings.HasPrefix(e, "Normal Descheduled Evicted from seed a: NoExecuteTaints: "):
			onShoots = append(onShoots, e)
		case strings.HasPrefix(e, "Normal Descheduled Evicted 3 shoots"):
			onSeed = append(onSeed, e)
		default:
			t.Errorf("unexpected Event %q", e)
		}
	}
	if len(onShoots) != 3 {
		t.Errorf("%d Descheduled Events on shoots, want 3: %v", len(onShoots), onShoots)
	}
	want := "Normal Descheduled Evicted 3 shoots; NoExecuteTaints: seed a has NoExecute taint seed.gardener.cloud/unschedulable:NoExecute that the shoot does not tolerate: garden-dev/x, garden-dev/y, garden-dev/z"
	if len(onSeed) != 1 || onSeed[0] != want {
		t.Errorf("Events on the seed: %q, want one %q", onSeed, want)
	}
	// The next pass evicts nothing and writes no Event.
	h.pass(t)
	if e := h.events(); len(e) != 0 {
		t.Errorf("a pass without evictions wrote Events: %v", e)
	}
}

func TestSeedEventMessage(t *testing.T) {
	seed := coretest.MakeSeed("a").Allocatable(-1).Obj()
	one := &seedEvictions{seed: seed, shoots: []string{"ns/x"}, reasons: []string{"P: why"}}
	if got, want := one.message("Evicted"), "Evicted shoot ns/x: P: why"; got != want {
		t.Errorf("one eviction: %q, want %q (as the per-shoot Event on the seed read)", got, want)
	}
	mixed := &seedEvictions{seed: seed, shoots: []string{"ns/c", "ns/b", "ns/a"}, reasons: []string{"P: one", "Q: two", "P: one"}}
	if got, want := mixed.message("Evicted"), "Evicted 3 shoots; P: one: ns/a, ns/c; Q: two: ns/b"; got != want {
		t.Errorf("two reasons: %q, want %q", got, want)
	}
	many := &seedEvictions{seed: seed}
	for i := range 500 {
		many.shoots = append(many.shoots, fmt.Sprintf("namespace/shoot-%04d", i))
		many.reasons = append(many.reasons, "NoExecuteTaints: seed a has NoExecute taint k:NoExecute that the shoot does not tolerate")
	}
	msg := many.message("Evicted")
	if len(msg) > maxSeedEventMessage {
		t.Errorf("message of %d bytes, want at most %d", len(msg), maxSeedEventMessage)
	}
	named := strings.Count(msg, "namespace/shoot-")
	if !strings.HasPrefix(msg, "Evicted 500 shoots; NoExecuteTaints: seed a has NoExecute taint k:NoExecute that the shoot does not tolerate: namespace/shoot-0000, ") ||
		!strings.HasSuffix(msg, fmt.Sprintf(" and %d more", 500-named)) || named < 10 {
		t.Errorf("long message names %d shoots: %q", named, msg)
	}
	// A reason longer than the limit still names its first shoot.
	long := &seedEvictions{seed: seed, shoots: []string{"ns/a", "ns/b"}, reasons: []string{strings.Repeat("r", 2000), strings.Repeat("r", 2000)}}
	if got := long.message("Evicted"); !strings.Contains(got, ": ns/a and 1 more") {
		t.Errorf("long reason: %q", got[len(got)-40:])
	}
}
