//go:build integration

package graftctl

import (
	"strings"
	"testing"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
)

func TestGetAndDescribe(t *testing.T) {
	l := newLandscape(t, "gctl-get", "a")
	a := l.SeedName("a")
	if err := l.SetTaints(t.Context(), "a", corev1alpha1.SeedTaint{Key: "dedicated", Effect: corev1alpha1.TaintEffectNoSchedule}); err != nil {
		t.Fatal(err)
	}
	createShoots(t, l, "a", 2)
	pending := l.NewShoot("pending", "")
	if err := l.CreateShoots(t.Context(), []*corev1alpha1.Shoot{pending}, 1); err != nil {
		t.Fatal(err)
	}

	out := run(t, "get", "seeds", a)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || strings.Join(strings.Fields(lines[0]), " ") != "NAME READY PROVIDER REGION USAGE/ALLOCATABLE TAINTS AGE" {
		t.Fatalf("get seeds:\n%s", out)
	}
	if f := strings.Fields(lines[1]); len(f) != 7 || f[0] != a || f[1] != "True" || f[2] != "aws" || f[3] != "gctl-get" || f[4] != "2/-" || f[5] != "dedicated:NoSchedule" {
		t.Errorf("get seeds row: %q", lines[1])
	}

	out = run(t, "get", "shoots", "-n", l.Name)
	if !strings.Contains(out, "NAME      SEED") || !strings.Contains(out, "pending   <none>") || !strings.Contains(out, "Pending") {
		t.Errorf("get shoots:\n%s", out)
	}
	out = run(t, "get", "shoots", "-A", "-o", "name")
	if !strings.Contains(out, "shoot.core.graft.dev/pending\n") {
		t.Errorf("get shoots -A -o name:\n%s", out)
	}

	// Shell completion offers the seeds of the live garden.
	out = run(t, "__complete", "cordon", "gctl-get-")
	if out != a+"\n:4\n" {
		t.Errorf("completion of seed names: %q", out)
	}

	// No scheduler runs here: the pending shoot stays pending, and describe
	// explains why the only seed of its region does not fit.
	out = run(t, "describe", "shoot", "pending", "-n", l.Name)
	for _, want := range []string{
		"Seed:            <none>\n",
		"  " + a + " ",
		"shoot gctl-get/pending (strategy SameRegion): not scheduled: ",
		"Taints: shoot does not tolerate the seed's taints (dedicated:NoSchedule)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("describe lacks %q:\n%s", want, out)
		}
	}
}
