//go:build integration

package graftctl

import (
	"encoding/json"
	"strings"
	"testing"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
)

// TestSimulateFromCluster: simulate --from-cluster reads the live garden
// through graft's API, found by discovery or named with --api, and places the
// pending shoot as the algorithm would: not on the cordoned seed.
func TestSimulateFromCluster(t *testing.T) {
	l := newLandscape(t, "gctl-sim", "a", "b")
	run(t, "cordon", l.SeedName("a"))
	createShoots(t, l, "b", 1)
	if err := l.CreateShoots(t.Context(), []*corev1alpha1.Shoot{l.NewShoot("pending", "")}, 1); err != nil {
		t.Fatal(err)
	}

	for _, args := range [][]string{
		{"simulate", "--from-cluster", "-o", "json"},
		{"--api=core.graft.dev", "simulate", "--from-cluster", "-o", "json"},
	} {
		out := run(t, args...)
		found := false
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var res struct{ Shoot, Seed, Error string }
			if err := json.Unmarshal([]byte(line), &res); err != nil {
				t.Fatalf("graftctl %q printed %q: %v", args, line, err)
			}
			switch res.Shoot {
			case l.Name + "/pending":
				found = true
				if res.Seed != l.SeedName("b") || res.Error != "" {
					t.Errorf("graftctl %q: pending shoot to %q (error %q), want %s", args, res.Seed, res.Error, l.SeedName("b"))
				}
			case l.Name + "/s-00":
				t.Errorf("graftctl %q scheduled the bound shoot s-00 again", args)
			}
		}
		if !found {
			t.Errorf("graftctl %q left out %s/pending:\n%s", args, l.Name, out)
		}
	}

	// The files and the cluster are two sources: not both at once.
	r := fail(t, "simulate", "--from-cluster", "-f", "landscape.yaml")
	if !strings.Contains(r.errOut, "-f and --from-cluster cannot be combined") {
		t.Errorf("simulate -f --from-cluster: %s", r.errOut)
	}
}
