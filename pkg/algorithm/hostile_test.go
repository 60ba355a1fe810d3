package algorithm

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/coretest"
)

// allocatedBy returns the bytes fn allocates.
func allocatedBy(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestHostileShootCostsBoundedMemory feeds decisions the largest shoots a
// tenant can write (on Gardener's API, which bounds its strings less than
// graft's CRD) against many seeds that all reject them: the decision and its
// message, cut to the size stored in lastOperation, cost memory in proportion
// to the input, not to the input times the seeds.
func TestHostileShootCostsBoundedMemory(t *testing.T) {
	const mib = 1 << 20
	manySeeds := func(n int, build func(*coretest.SeedWrapper) *coretest.SeedWrapper) []*v1alpha1.Seed {
		seeds := make([]*v1alpha1.Seed, n)
		for i := range seeds {
			seeds[i] = build(coretest.MakeSeed(fmt.Sprintf("seed-%03d", i))).Obj()
		}
		return seeds
	}
	// A selector of ~1 MiB of valid labels, matching no seed.
	huge := &v1alpha1.SeedSelector{LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{}}}
	for i := 0; i < mib/100; i++ {
		huge.MatchLabels[fmt.Sprintf("tenant.example.com/key-%06d", i)] = strings.Repeat("v", 63)
	}
	// Every /30 of the seeds' node network.
	overlapping := make([]string, 1<<14)
	for i := range overlapping {
		overlapping[i] = fmt.Sprintf("fd00:1::%x:0/112", i)
	}
	for _, tc := range []struct {
		name  string
		seeds []*v1alpha1.Seed
		shoot *v1alpha1.Shoot
		// want is a part of the reason, so that the case fails where meant.
		want string
	}{{
		name:  "region at the CRD's limit, in no seed's region",
		seeds: manySeeds(200, func(s *coretest.SeedWrapper) *coretest.SeedWrapper { return s.Provider("aws", "us-east-1") }),
		shoot: coretest.MakeShoot("garden-dev", "s").Provider("aws", strings.Repeat("r", MaxRegionLength)).Obj(),
		want:  "strategy SameRegion needs region",
	}, {
		name:  "region of a MiB (Gardener's API does not bound it)",
		seeds: manySeeds(200, func(s *coretest.SeedWrapper) *coretest.SeedWrapper { return s.Provider("aws", "us-east-1") }),
		shoot: coretest.MakeShoot("garden-dev", "s").Provider("aws", strings.Repeat("r", mib)).Obj(),
		want:  "no region name is longer than",
	}, {
		name:  "seed selector of a MiB",
		seeds: manySeeds(200, func(s *coretest.SeedWrapper) *coretest.SeedWrapper { return s }),
		shoot: coretest.MakeShoot("garden-dev", "s").SeedSelector(huge).Obj(),
		want:  "spec.seedSelector.matchLabels of shoot garden-dev/s has 10485 entries; at most 32",
	}, {
		name:  "seed selector at its bounds, matching no seed",
		seeds: manySeeds(200, func(s *coretest.SeedWrapper) *coretest.SeedWrapper { return s }),
		shoot: coretest.MakeShoot("garden-dev", "s").SeedSelector(largestSelector(strings.Repeat("v", 63))).Obj(),
		want:  "seed selector of 'Shoot'",
	}, {
		name:  "provider types of the seed selector",
		seeds: manySeeds(200, func(s *coretest.SeedWrapper) *coretest.SeedWrapper { return s.Provider("gcp", "eu-west-1") }),
		shoot: coretest.MakeShoot("garden-dev", "s").SeedSelector(&v1alpha1.SeedSelector{ProviderTypes: strings.Split(strings.Repeat(strings.Repeat("p", 60)+",", mib/61), ",")}).Obj(),
		want:  "spec.seedSelector.providerTypes of shoot garden-dev/s has 17190 entries; at most 16",
	}, {
		name:  "provider types at their bound",
		seeds: manySeeds(200, func(s *coretest.SeedWrapper) *coretest.SeedWrapper { return s.Provider("gcp", "eu-west-1") }),
		shoot: coretest.MakeShoot("garden-dev", "s").SeedSelector(&v1alpha1.SeedSelector{ProviderTypes: strings.Split(strings.Repeat(strings.Repeat("p", 60)+",", MaxSelectorProviderTypes-1)+"aws", ",")}).Obj(),
		want:  `seed provider type "gcp" is not the shoot's "aws"`,
	}, {
		name: "sixteen thousand overlapping CIDRs",
		seeds: manySeeds(50, func(s *coretest.SeedWrapper) *coretest.SeedWrapper {
			return s.Networks("fd00:1::/64", "100.96.0.0/11", "100.64.0.0/13")
		}),
		// IPv6 networks: IPv4 ones may overlap the seed's.
		shoot: coretest.MakeShoot("garden-dev", "s").StatusNetworks(overlapping, nil, nil).Obj(),
		want:  "and 16381 more",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			snap := snapshotOf(tc.seeds)
			in := Inputs{CloudProfile: coretest.MakeCloudProfile("aws").Obj()}
			var msg string
			allocated := allocatedBy(func() {
				_, err := Schedule(tc.shoot, snap, in)
				if err == nil {
					t.Fatal("a seed was chosen; every seed must reject the shoot")
				}
				msg = TruncatedError(err, 4096)
			})
			if len(msg) > 4096 {
				t.Errorf("message of %d bytes, want at most 4096", len(msg))
			}
			if !strings.Contains(msg, tc.want) {
				t.Errorf("message %q does not say %q", msg, tc.want)
			}
			// The input is at most a few MiB and read once or twice; before
			// messages were bounded, each seed's rejection repeated it.
			if limit := uint64(16 * mib); allocated > limit {
				t.Errorf("deciding allocated %d MiB, want at most %d MiB", allocated/mib, limit/mib)
			}
			t.Logf("allocated %.1f MiB, message %d bytes", float64(allocated)/mib, len(msg))
		})
	}
}

// largestSelector is the largest seed selector the bounds allow, every
// requirement holding for the seeds of newSeed but one label that no seed
// has (value), so that each seed checks them all.
func largestSelector(value string) *v1alpha1.SeedSelector {
	sel := &v1alpha1.SeedSelector{LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{}}}
	for i := range MaxSelectorRequirements {
		sel.MatchLabels[fmt.Sprintf("tenant.example.com/key-%02d", i)] = value
		values := make([]string, MaxSelectorValues)
		for j := range values {
			values[j] = fmt.Sprintf("%s-%02d", strings.Repeat("x", 60), j)
		}
		sel.MatchExpressions = append(sel.MatchExpressions, metav1.LabelSelectorRequirement{
			Key: fmt.Sprintf("tenant.example.com/other-%02d", i), Operator: metav1.LabelSelectorOpNotIn, Values: values,
		})
	}
	return sel
}

// TestUnboundedSelectorIsRefused: a shoot with 30,000 DoesNotExist
// requirements, each met by every seed, cost 400 to 1,000 times a normal
// shoot's decision. Past the bounds it is refused before it is parsed, with
// a reason that names the field and the limit.
func TestUnboundedSelectorIsRefused(t *testing.T) {
	seeds := make([]*v1alpha1.Seed, 100)
	for i := range seeds {
		seeds[i] = coretest.MakeSeed(fmt.Sprintf("seed-%03d", i)).Obj()
	}
	snap := snapshotOf(seeds)
	in := Inputs{CloudProfile: coretest.MakeCloudProfile("aws").Obj()}
	flood := &v1alpha1.SeedSelector{}
	for i := range 30000 {
		flood.MatchExpressions = append(flood.MatchExpressions, metav1.LabelSelectorRequirement{Key: fmt.Sprintf("k%05d", i), Operator: metav1.LabelSelectorOpDoesNotExist})
	}
	manyValues := &v1alpha1.SeedSelector{LabelSelector: metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
		Key: "k", Operator: metav1.LabelSelectorOpNotIn, Values: strings.Split(strings.Repeat("v,", MaxSelectorValues), ","),
	}}}}
	for _, tc := range []struct {
		name string
		sel  *v1alpha1.SeedSelector
		want string
	}{
		{"30,000 expressions", flood, "spec.seedSelector.matchExpressions of shoot garden-dev/s has 30000 entries; at most 32 are allowed"},
		{"65 values", manyValues, "spec.seedSelector.matchExpressions[0].values of shoot garden-dev/s has 65 entries; at most 64 are allowed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Schedule(coretest.MakeShoot("garden-dev", "s").SeedSelector(tc.sel).Obj(), snap, in)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
	// At the bounds the shoot is decided as any other, and placed.
	sel := largestSelector("")
	sel.MatchLabels = nil
	if seed, err := Schedule(coretest.MakeShoot("garden-dev", "s").SeedSelector(sel).Obj(), snap, in); err != nil || seed == "" {
		t.Fatalf("a selector at the bounds: %v", err)
	}
}

func TestTruncatedError(t *testing.T) {
	e := &ScheduleError{Headline: "none fit", Rejections: []Rejection{
		{Seed: "a", Message: strings.Repeat("x", 100)}, {Seed: "b", Message: "short"},
	}}
	full := e.Error()
	if got := e.Truncated(len(full)); got != full {
		t.Errorf("Truncated(len) = %q, want the whole %q", got, full)
	}
	for _, limit := range []int{0, 2, 3, 8, 20, 50, len(full) - 1} {
		got := e.Truncated(limit)
		if len(got) > limit {
			t.Errorf("Truncated(%d) is %d bytes", limit, len(got))
		}
		if limit >= 3 && !strings.HasSuffix(got, "...") {
			t.Errorf("Truncated(%d) = %q, want it to end in ...", limit, got)
		}
		if want := strings.TrimSuffix(got, "..."); !strings.HasPrefix(full, want) {
			t.Errorf("Truncated(%d) = %q is not a prefix of %q", limit, got, full)
		}
	}
	if got := Clip("ü" + strings.Repeat("é", maxQuoted)); !strings.HasSuffix(got, "...(130 bytes)") || len(got) > maxQuoted+len("...(130 bytes)") {
		t.Errorf("clip = %q", got)
	}
}
