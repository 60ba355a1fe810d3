//go:build parity

package parity

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

var (
	decisions = flag.Int("decisions", 300, "decisions to compare at least")
	seed      = flag.Uint64("seed", 1, "seed of the generated landscapes")
)

// TestParity compares graft's decisions with Gardener's scheduler code (the
// oracle PARITY_ORACLE names) on generated landscapes, both strategies in
// turn: every decision must be the same seed, or a failure of both whose
// graft error begins with Gardener's words, unless it is a deliberate
// difference.
func TestParity(t *testing.T) {
	oracle := os.Getenv("PARITY_ORACLE")
	if oracle == "" {
		t.Fatal("PARITY_ORACLE names no oracle binary: make parity builds it (hack/build-parity-oracle.sh)")
	}
	rng := rand.New(rand.NewPCG(*seed, 0))
	var total, placed, failed, reported int
	kept := map[string]int{}
	// failures counts the failures of both by Gardener's headline.
	failures := map[string]int{}
	for n := 0; total < *decisions; n++ {
		strategy := []string{"SameRegion", "MinimalDistance"}[n%2]
		l, err := Generate(rng, strategy)
		if err != nil {
			t.Fatalf("landscape %d: %v", n, err)
		}
		want, err := Oracle(oracle, l)
		if err != nil {
			t.Fatalf("landscape %d: %v", n, err)
		}
		got, err := Graft(l)
		if err != nil {
			t.Fatalf("landscape %d: %v", n, err)
		}
		for i := range want {
			total++
			g, w := got[i], want[i]
			switch {
			case g.Seed != "" && g.Seed == w.Seed:
				placed++
				continue
			case g.Seed == "" && w.Seed == "" && g.Error != "" && w.Error != "" &&
				strings.HasPrefix(g.Error, w.Error[:strings.IndexAny(w.Error+":", ":{")]):
				// Both fail, and graft's error begins with Gardener's words.
				failed++
				failures[headline(w.Error)]++
				continue
			}
			if why := deliberate(l, g, w); why != "" {
				kept[why]++
				continue
			}
			if reported++; reported <= 5 {
				t.Errorf("landscape %d (%s), shoot %s: graft %s, Gardener %s (landscape in %s)",
					n, strategy, w.Shoot, describe(g), describe(w), save(t, n, l))
			}
		}
	}
	var reasons []string
	for r := range kept {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	t.Logf("%d decisions: %d placed on the same seed, %d failed on both, %d differ on purpose, %d differ", total, placed, failed, total-placed-failed-reported, reported)
	for _, r := range reasons {
		t.Logf("  %d: %s", kept[r], r)
	}
	var heads []string
	for h := range failures {
		heads = append(heads, h)
	}
	sort.Slice(heads, func(i, j int) bool { return failures[heads[i]] > failures[heads[j]] })
	t.Logf("failures of both, by Gardener's headline:")
	for _, h := range heads {
		t.Logf("  %d: %s", failures[h], h)
	}
}

// headline is an error's text before its list of seeds, numbers dropped.
func headline(err string) string {
	if i := strings.IndexAny(err, ":{["); i > 0 {
		err = err[:i]
	}
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return 'N'
		}
		return r
	}, strings.TrimSpace(err))
}

func describe(d Decision) string {
	if d.Seed != "" {
		return "chose " + d.Seed
	}
	return "failed: " + d.Error
}

// save writes the landscape where the test's output says, to decide again by
// hand (graftctl simulate --explain -f).
func save(t *testing.T, n int, l *Landscape) string {
	dir := os.Getenv("PARITY_OUT")
	if dir == "" {
		dir = t.TempDir()
	}
	path := filepath.Join(dir, fmt.Sprintf("landscape-%d.yaml", n))
	f, err := os.Create(path)
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	for _, obj := range l.Objects {
		data, _ := json.Marshal(obj.Object)
		f.WriteString("---\n")
		f.Write(data)
		f.WriteString("\n")
	}
	return path
}
