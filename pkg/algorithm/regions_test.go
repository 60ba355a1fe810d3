package algorithm

import (
	"math/rand/v2"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/coretest"
)

func TestSplitRegion(t *testing.T) {
	for _, tc := range []struct{ in, base, orientation string }{
		{"eu-west-1", "eu-:-1", "west"},
		{"europe-central2", "europe-:2", "central"},
		{"asia-northeast1", "asia-:east1", "north"}, // north is looked for before east
		{"southeastasia", ":eastasia", "south"},
		{"west_europe", ":_europe", "west"},
		{"europe-west", "europe-:", "west"},
		{"europe-:", "europe-:", ""}, // a colon of its own is no orientation
		{"local", "local", ""},
		{"", "", ""},
	} {
		base, o := SplitRegion(tc.in)
		if base != tc.base || o != tc.orientation {
			t.Errorf("SplitRegion(%q) = %q, %q; want %q, %q", tc.in, base, o, tc.base, tc.orientation)
		}
	}
}

// TestLevenshteinDistance pins the reference scheduler's fallback distance with
// numbers worked out by hand: 2 x the edit distance of the base names, the
// orientation correction (0 same or both without, 1 exactly one without, 2
// different) and 2 for another provider type.
func TestLevenshteinDistance(t *testing.T) {
	for _, tc := range []struct {
		shootRegion, shootProvider, seedRegion, seedProvider string
		want                                                 int
	}{
		{"eu-west-1", "aws", "eu-west-1", "aws", 0},
		{"eu-west-1", "aws", "eu-west-1", "gcp", 2},  // provider differs
		{"eu-west-1", "aws", "eu-east-1", "aws", 2},  // eu-:-1 = eu-:-1, orientations differ
		{"eu-west-1", "aws", "eu-west-2", "aws", 2},  // eu-:-1 -> eu-:-2 is 1 edit
		{"eu-west-1", "aws", "eu-1", "aws", 2*2 + 1}, // eu-:-1 -> eu-1 drops ":" and "-"; only one has an orientation
		{"eu-1", "aws", "eu-west-1", "aws", 2*2 + 1}, // the same from the other side
		{"local", "aws", "local", "aws", 0},          // neither has an orientation: nothing added
		{"local", "aws", "eu-west-1", "aws", 2*6 + 1},
		{"eu-west-1", "aws", "us-west-1", "aws", 2 * 2},       // e->u, u->s
		{"eu-west-1", "aws", "us-east-2", "gcp", 2*3 + 2 + 2}, // e->u, u->s, 1->2
		{"europe", "p", "asia", "p", 2 * 6},                   // no letter in common: 4 substitutions, 2 deletions
		{"europe-west", "p", "asia-west", "p", 2 * 6},         // europe-: -> asia-:
		{"europe-west", "p", "asia-east", "p", 2*6 + 2},       // and the orientations differ
		{"europe-west", "p", "asia-:", "p", 2*6 + 1},          // asia-: has no orientation, only the base of one
		{"europe-west", "p", "europe-east", "p", 2},           // same base
		{"europe-west", "p", "europe-:", "p", 1},              // same base, only one orientation
		{"ca-1", "p", "ca-central-1", "p", 2*2 + 1},           // ca-1 -> ca-:-1 inserts ":" and "-"
		{"ca-1", "p", "ca-2", "p", 2 * 1},                     // neither has an orientation
	} {
		if got := LevenshteinDistance(tc.shootRegion, tc.shootProvider, tc.seedRegion, tc.seedProvider); got != tc.want {
			t.Errorf("LevenshteinDistance(%q,%q,%q,%q) = %d, want %d", tc.shootRegion, tc.shootProvider, tc.seedRegion, tc.seedProvider, got, tc.want)
		}
	}
}

// TestMinimalDistanceAsReference checks decisions where the reference
// scheduler's distance and region ConfigMap reading choose differently from
// a base name without placeholder, a cost for regions without orientation, or
// a ConfigMap reading that refuses what the reference accepts.
func TestMinimalDistanceAsReference(t *testing.T) {
	md := Config{Strategy: StrategyMinimalDistance}
	cm := func(data map[string]string) *corev1.ConfigMap {
		return coretest.RegionConfigMap("garden", "aws-regions", "aws,gcp", data)
	}
	remote := strings.Repeat("x", 600) // no letter in common with eu-:-1
	anyProvider := func(p *v1alpha1.CloudProfile) {
		p.Spec.SeedSelector = &v1alpha1.SeedSelector{ProviderTypes: []string{"*"}}
	}
	for _, tc := range []scheduleCase{
		{
			// eu-:-1 is 2 edits from eu-1 (5 with the orientation of one side)
			// and 2 from us-:-1 (4).
			name:          "a region without orientation is farther than the same base with another prefix",
			seeds:         seeds(coretest.MakeSeed("eu").Provider("aws", "eu-1").Obj(), coretest.MakeSeed("us").Provider("aws", "us-west-1").Obj()),
			shoot:         coretest.MakeShoot("garden-dev", "s").Obj(),
			config:        md,
			want:          "us",
			wantDistances: map[string]int{"eu": 5, "us": 4},
			wantFilters:   map[string]Filter{"eu": FilterMinimalDistance},
		},
		{
			// ca-2 is 2 (neither has an orientation), ca-central-1 is 5: the
			// closer seed wins although it hosts more shoots.
			name:          "two regions without orientation cost nothing extra",
			seeds:         seeds(coretest.MakeSeed("ca2").Provider("aws", "ca-2").Obj(), coretest.MakeSeed("cacentral").Provider("aws", "ca-central-1").Obj()),
			bound:         fill("ca2", 1),
			shoot:         coretest.MakeShoot("garden-dev", "s").Provider("aws", "ca-1").Obj(),
			config:        md,
			want:          "ca2",
			wantDistances: map[string]int{"ca2": 2, "cacentral": 5},
			wantFilters:   map[string]Filter{"cacentral": FilterMinimalDistance},
		},
		{
			name: "seeds at the same distance: the least used wins",
			seeds: seeds(coretest.MakeSeed("east").Provider("aws", "eu-east-1").Obj(), coretest.MakeSeed("west2").Provider("aws", "eu-west-2").Obj(),
				coretest.MakeSeed("us").Provider("aws", "us-west-1").Obj()),
			bound:         append(fill("east", 2), fill("west2", 1)...),
			shoot:         coretest.MakeShoot("garden-dev", "s").Obj(),
			config:        md,
			want:          "west2",
			wantDistances: map[string]int{"east": 2, "west2": 2, "us": 4},
			wantFilters:   map[string]Filter{"east": FilterLeastUsed, "us": FilterMinimalDistance},
		},
		{
			name:          "seeds at the same distance and usage: the name sorting first wins",
			seeds:         seeds(coretest.MakeSeed("west2").Provider("aws", "eu-west-2").Obj(), coretest.MakeSeed("east").Provider("aws", "eu-east-1").Obj()),
			shoot:         coretest.MakeShoot("garden-dev", "s").Obj(),
			config:        md,
			want:          "east",
			wantDistances: map[string]int{"east": 2, "west2": 2},
			wantFilters:   map[string]Filter{"west2": FilterLeastUsed},
		},
		{
			// With an entry, both seeds of the shoot's region would be at 0
			// and the less used gcp seed would win; the Levenshtein fallback
			// adds 2 for the other provider.
			name:          "an empty entry is no entry",
			seeds:         seeds(coretest.MakeSeed("aws").Provider("aws", "eu-west-1").Obj(), coretest.MakeSeed("gcp").Provider("gcp", "eu-west-1").Obj()),
			bound:         fill("aws", 5),
			shoot:         coretest.MakeShoot("garden-dev", "s").Obj(),
			mutateProfile: anyProvider,
			cm:            cm(map[string]string{"eu-west-1": ""}),
			config:        md,
			want:          "aws",
			wantDistances: map[string]int{"aws": 0, "gcp": 2},
		},
		{
			name:          "a negative distance is closer than the shoot's own region",
			seeds:         seeds(coretest.MakeSeed("same").Obj(), coretest.MakeSeed("other").Provider("aws", "eu-central-1").Obj()),
			shoot:         coretest.MakeShoot("garden-dev", "s").Obj(),
			cm:            cm(map[string]string{"eu-west-1": "eu-central-1: -4\n"}),
			config:        md,
			want:          "other",
			wantDistances: map[string]int{"same": 0, "other": -4},
		},
		{
			name:          "a null distance is 0",
			seeds:         seeds(coretest.MakeSeed("same").Obj(), coretest.MakeSeed("other").Provider("aws", "eu-central-1").Obj(), coretest.MakeSeed("far").Provider("aws", "us-east-1").Obj()),
			bound:         fill("same", 1),
			shoot:         coretest.MakeShoot("garden-dev", "s").Obj(),
			cm:            cm(map[string]string{"eu-west-1": "eu-central-1: null\nus-east-1: 1\n"}),
			config:        md,
			want:          "other",
			wantDistances: map[string]int{"same": 0, "other": 0, "far": 1},
			wantFilters:   map[string]Filter{"same": FilterLeastUsed, "far": FilterMinimalDistance},
		},
		{
			// The reference scheduler looks for the minimum from 2^31-1 down.
			name:          "a distance of 2^31-1 counts",
			seeds:         seeds(coretest.MakeSeed("near").Provider("aws", "eu-central-1").Obj(), coretest.MakeSeed("far").Provider("aws", "us-east-1").Obj()),
			shoot:         coretest.MakeShoot("garden-dev", "s").Obj(),
			cm:            cm(map[string]string{"eu-west-1": "us-east-1: 2147483647\n"}),
			config:        md,
			want:          "far",
			wantDistances: map[string]int{"far": 2147483647},
			wantFilters:   map[string]Filter{"near": FilterMinimalDistance},
		},
		{
			name:          "a distance above 2^31-1 is as if unlisted",
			seeds:         seeds(coretest.MakeSeed("near").Provider("aws", "eu-central-1").Obj(), coretest.MakeSeed("far").Provider("aws", "us-east-1").Obj()),
			shoot:         coretest.MakeShoot("garden-dev", "s").Obj(),
			cm:            cm(map[string]string{"eu-west-1": "us-east-1: 2147483648\n"}),
			config:        md,
			want:          "near",
			wantDistances: map[string]int{"near": 2, "far": 6}, // the Levenshtein fallback
		},
		{
			name:        "a distance above 2^31-1 is set aside when others are listed",
			seeds:       seeds(coretest.MakeSeed("near").Provider("aws", "eu-central-1").Obj(), coretest.MakeSeed("far").Provider("aws", "us-east-1").Obj()),
			shoot:       coretest.MakeShoot("garden-dev", "s").Obj(),
			cm:          cm(map[string]string{"eu-west-1": "us-east-1: 2147483648\neu-central-1: 9\n"}),
			config:      md,
			want:        "near",
			wantFilters: map[string]Filter{"far": FilterMinimalDistance},
		},
		{
			// 600 substitutions and insertions: 1201 with the orientation.
			name:    "a Levenshtein distance above 1000 is never a candidate",
			seeds:   seeds(coretest.MakeSeed("remote").Provider("aws", remote).Obj()),
			shoot:   coretest.MakeShoot("garden-dev", "s").Obj(),
			config:  md,
			wantErr: []string{`no matching seed candidate found for Configuration (Cloud Profile 'aws', Region 'eu-west-1', SeedDeterminationStrategy 'MinimalDistance')`, `Levenshtein distance 1201 between regions "eu-west-1" and "xxxx`},
		},
		{
			name:          "a Levenshtein distance above 1000 is set aside",
			seeds:         seeds(coretest.MakeSeed("remote").Provider("aws", remote).Obj(), coretest.MakeSeed("near").Provider("aws", "eu-central-1").Obj()),
			shoot:         coretest.MakeShoot("garden-dev", "s").Obj(),
			config:        md,
			want:          "near",
			wantDistances: map[string]int{"remote": 1201, "near": 2},
			wantFilters:   map[string]Filter{"remote": FilterMinimalDistance},
		},
		{
			name:      "an entry that is null fails the shoot that needs it",
			seeds:     seeds(coretest.MakeSeed("a").Obj()),
			shoot:     coretest.MakeShoot("garden-dev", "s").Obj(),
			cm:        cm(map[string]string{"eu-west-1": "null"}),
			config:    md,
			wantErr:   []string{`region ConfigMap garden/aws-regions: data["eu-west-1"] is empty or null`},
			wantOther: true,
		},
		{
			name:      "a fraction is no distance",
			seeds:     seeds(coretest.MakeSeed("a").Obj()),
			shoot:     coretest.MakeShoot("garden-dev", "s").Obj(),
			cm:        cm(map[string]string{"eu-west-1": "eu-central-1: 1.5\n"}),
			config:    md,
			wantErr:   []string{`region ConfigMap garden/aws-regions: data["eu-west-1"]["eu-central-1"] = 1.5 is not an integer distance`},
			wantOther: true,
		},
	} {
		t.Run(tc.name, tc.run)
	}

	// The set-aside seed says why it was not considered.
	in := Inputs{CloudProfile: coretest.MakeCloudProfile("aws").Obj(), Config: md,
		RegionConfigMap: cm(map[string]string{"eu-west-1": "us-east-1: 2147483648\neu-central-1: 9\n"})}
	e := Explain(coretest.MakeShoot("garden-dev", "s").Obj(), snapshotOf(seeds(coretest.MakeSeed("near").Provider("aws", "eu-central-1").Obj(), coretest.MakeSeed("far").Provider("aws", "us-east-1").Obj())), in)
	for _, r := range e.Seeds {
		if want := `region "us-east-1" is listed for shoot region "eu-west-1" at 2147483648 in region ConfigMap garden/aws-regions, above the largest distance considered (2147483647)`; r.Seed == "far" && r.Message != want {
			t.Errorf("far: %q, want %q", r.Message, want)
		}
	}
}

// TestScoringFarApartDistances: negative configured distances are valid, and
// a range wider than int64 must not overflow the MinimalDistance score.
func TestScoringFarApartDistances(t *testing.T) {
	scheduleCase{
		name:  "far apart",
		seeds: seeds(coretest.MakeSeed("near").Provider("aws", "eu-central-1").Obj(), coretest.MakeSeed("far").Provider("aws", "us-east-1").Obj()),
		shoot: coretest.MakeShoot("garden-dev", "s").Obj(),
		cm: coretest.RegionConfigMap("garden", "aws-regions", "aws", map[string]string{
			"eu-west-1": "eu-central-1: -9223372036854775808\nus-east-1: 2147483647\n",
		}),
		config:      Config{Strategy: StrategyMinimalDistance, ScoreWeights: map[ScorePlugin]int32{ScorePluginMinimalDistance: 1}},
		want:        "near",
		wantFilters: map[string]Filter{"far": FilterScore},
	}.run(t)
}

func TestSelectRegionConfigMap(t *testing.T) {
	b := coretest.RegionConfigMap("garden", "b", "aws, gcp", nil)
	a := coretest.RegionConfigMap("garden", "a", "gcp,aws", nil)
	other := coretest.RegionConfigMap("garden", "0-other", "azure", nil)
	unlabelled := coretest.RegionConfigMap("garden", "0-unlabelled", "aws", nil)
	unlabelled.Labels = nil
	wrongPurpose := coretest.RegionConfigMap("garden", "0-purpose", "aws", nil)
	wrongPurpose.Labels["scheduling.gardener.cloud/purpose"] = "something-else"
	all := []*corev1.ConfigMap{b, other, nil, unlabelled, wrongPurpose, a}
	if got := SelectRegionConfigMap("aws", all); got != a {
		t.Fatalf("got %v, want a", got)
	}
	if got := SelectRegionConfigMap("azure", all); got != other {
		t.Fatalf("got %v, want 0-other", got)
	}
	if got := SelectRegionConfigMap("openstack", all); got != nil {
		t.Fatalf("got %v, want none", got)
	}
	if got := SelectRegionConfigMap("", all); got != nil {
		t.Fatalf("empty profile matched %v", got)
	}
}

func TestParseRegionConfig(t *testing.T) {
	cm := coretest.RegionConfigMap("garden", "regions", "aws", map[string]string{
		"eu-west-1": "eu-central-1: 10\nus-east-1: 100\n",
		"us-east-1": "eu-west-1: ten\n",
		"ap-1":      "- a list\n",
		"ap-2":      "x: -1\ny: null\nz: 2.0\n",
		"ap-3":      "x: 1.5\n",
		"ap-4":      "# nothing but a comment\n",
		"empty":     "",
	})
	rc, err := ParseRegionConfig(cm)
	if err == nil {
		t.Fatal("no error for malformed entries")
	}
	for _, want := range []string{
		`data["us-east-1"]["eu-west-1"] = ten is not an integer distance`,
		`data["ap-1"] is not a map`,
		`data["ap-3"]["x"] = 1.5 is not an integer distance`,
		`data["ap-4"] is empty or null`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "ap-2") {
		t.Errorf("negative, null and integral distances are valid: %v", err)
	}
	d, err := rc.Distances("eu-west-1")
	if err != nil || d["eu-central-1"] != 10 || d["us-east-1"] != 100 {
		t.Fatalf("eu-west-1: %v %v", d, err)
	}
	if d, err := rc.Distances("ap-2"); err != nil || len(d) != 3 || d["x"] != -1 || d["y"] != 0 || d["z"] != 2 {
		t.Fatalf("ap-2: %v %v", d, err)
	}
	if _, err := rc.Distances("us-east-1"); err == nil || !strings.Contains(err.Error(), "region ConfigMap garden/regions") {
		t.Fatalf("us-east-1: %v", err)
	}
	if d, err := rc.Distances("nowhere"); d != nil || err != nil {
		t.Fatalf("nowhere: %v %v", d, err)
	}
	// An empty entry is no entry, as if the region were not listed.
	if d, err := rc.Distances("empty"); err != nil || d != nil {
		t.Fatalf("empty: %v %v", d, err)
	}
	if rc, err := ParseRegionConfig(nil); rc != nil || err != nil {
		t.Fatal("nil ConfigMap")
	}
	var nilRC *RegionConfig
	if d, err := nilRC.Distances("x"); d != nil || err != nil {
		t.Fatal("nil RegionConfig")
	}

	// The parsed form takes precedence and gives the same decision as the raw one.
	seedsList := seeds(coretest.MakeSeed("a").Provider("aws", "eu-central-1").Obj(), coretest.MakeSeed("b").Provider("aws", "us-east-1").Obj())
	snap := snapshotOf(seedsList)
	in := Inputs{CloudProfile: coretest.MakeCloudProfile("aws").Obj(), RegionConfig: rc, Config: Config{Strategy: StrategyMinimalDistance}}
	if got, err := Schedule(coretest.MakeShoot("garden-dev", "s").Obj(), snap, in); err != nil || got != "a" {
		t.Fatalf("parsed: %q %v", got, err)
	}
	if _, err := Schedule(coretest.MakeShoot("garden-dev", "s").Provider("aws", "us-east-1").Obj(), snap, in); err == nil {
		t.Fatal("malformed entry did not fail the shoot needing it")
	}
}

// TestLevenshteinDistanceDefinition restates the reference scheduler's fallback
// distance plainly (placeholder by strings.Replace, a textbook edit-distance
// table) and compares it on generated region names, orientations placed
// anywhere, more than one, or none.
func TestLevenshteinDistanceDefinition(t *testing.T) {
	split := func(name string) (string, string) {
		for _, o := range []string{"north", "south", "east", "west", "central"} {
			if strings.Contains(name, o) {
				return strings.Replace(name, o, ":", 1), o
			}
		}
		return name, ""
	}
	editDistance := func(a, b []rune) int {
		prev := make([]int, len(b)+1)
		for j := range prev {
			prev[j] = j
		}
		for i := 1; i <= len(a); i++ {
			cur := make([]int, len(b)+1)
			cur[0] = i
			for j := 1; j <= len(b); j++ {
				sub := prev[j-1]
				if a[i-1] != b[j-1] {
					sub++
				}
				cur[j] = min(prev[j]+1, cur[j-1]+1, sub)
			}
			prev = cur
		}
		return prev[len(b)]
	}
	want := func(shoot, shootProvider, seed, seedProvider string) int {
		shootBase, shootO := split(shoot)
		seedBase, seedO := split(seed)
		d := 2 * editDistance([]rune(shootBase), []rune(seedBase))
		switch {
		case shootO == "" && seedO == "":
		case shootO == "" || seedO == "":
			d++
		case shootO != seedO:
			d += 2
		}
		if shootProvider != seedProvider {
			d += 2
		}
		return d
	}
	parts := []string{"eu", "us", "ap", "-", "1", "2", ":", "north", "south", "east", "west", "central", "asia", "europe", "ü"}
	rng := rand.New(rand.NewPCG(1, 2))
	name := func() string {
		var b strings.Builder
		for range rng.IntN(5) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		return b.String()
	}
	providers := []string{"aws", "gcp"}
	for range 20000 {
		shoot, seed := name(), name()
		sp, dp := providers[rng.IntN(2)], providers[rng.IntN(2)]
		if got, w := LevenshteinDistance(shoot, sp, seed, dp), want(shoot, sp, seed, dp); got != w {
			t.Fatalf("LevenshteinDistance(%q,%q,%q,%q) = %d, want %d", shoot, sp, seed, dp, got, w)
		}
	}
}
