package algorithm

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestSplitRegion(t *testing.T) {
	for _, tc := range []struct{ in, base, orientation string }{
		{"eu-west-1", "eu--1", "west"},
		{"europe-central2", "europe-2", "central"},
		{"asia-northeast1", "asia-east1", "north"},
		{"southeastasia", "eastasia", "south"},
		{"local", "local", ""},
		{"", "", ""},
	} {
		base, o := SplitRegion(tc.in)
		if base != tc.base || o != tc.orientation {
			t.Errorf("SplitRegion(%q) = %q, %q; want %q, %q", tc.in, base, o, tc.base, tc.orientation)
		}
	}
}

func TestLevenshteinDistance(t *testing.T) {
	for _, tc := range []struct {
		shootRegion, shootProvider, seedRegion, seedProvider string
		want                                                 int
	}{
		{"eu-west-1", "aws", "eu-west-1", "aws", 0},
		{"eu-west-1", "aws", "eu-west-1", "gcp", 2}, // provider differs
		{"eu-west-1", "aws", "eu-east-1", "aws", 2}, // orientation differs
		{"eu-west-1", "aws", "eu-1", "aws", 2 + 1},  // seed has no orientation: base eu--1 vs eu-1 is 1 edit
		{"local", "aws", "local", "aws", 1},         // neither has an orientation
		{"eu-west-1", "aws", "us-west-1", "aws", 4}, // 2 edits in the base name
		{"eu-west-1", "aws", "us-east-2", "gcp", 6 + 2 + 2},
	} {
		if got := LevenshteinDistance(tc.shootRegion, tc.shootProvider, tc.seedRegion, tc.seedProvider); got != tc.want {
			t.Errorf("LevenshteinDistance(%q,%q,%q,%q) = %d, want %d", tc.shootRegion, tc.shootProvider, tc.seedRegion, tc.seedProvider, got, tc.want)
		}
	}
}

func TestSelectRegionConfigMap(t *testing.T) {
	b := regionConfigMap("b", "aws, gcp", nil)
	a := regionConfigMap("a", "gcp,aws", nil)
	other := regionConfigMap("0-other", "azure", nil)
	unlabelled := regionConfigMap("0-unlabelled", "aws", nil)
	unlabelled.Labels = nil
	wrongPurpose := regionConfigMap("0-purpose", "aws", nil)
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
	cm := regionConfigMap("regions", "aws", map[string]string{
		"eu-west-1": "eu-central-1: 10\nus-east-1: 100\n",
		"us-east-1": "eu-west-1: ten\n",
		"ap-1":      "- a list\n",
		"ap-2":      "x: -1\n",
		"ap-3":      "x: 1.5\n",
		"empty":     "",
	})
	rc, err := ParseRegionConfig(cm)
	if err == nil {
		t.Fatal("no error for malformed entries")
	}
	for _, want := range []string{`data["us-east-1"]["eu-west-1"] = ten`, `data["ap-1"] is not a map`, `data["ap-2"]["x"] = -1`, `data["ap-3"]["x"] = 1.5`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	d, err := rc.Distances("eu-west-1")
	if err != nil || d["eu-central-1"] != 10 || d["us-east-1"] != 100 {
		t.Fatalf("eu-west-1: %v %v", d, err)
	}
	if _, err := rc.Distances("us-east-1"); err == nil || !strings.Contains(err.Error(), "region ConfigMap garden/regions") {
		t.Fatalf("us-east-1: %v", err)
	}
	if d, err := rc.Distances("nowhere"); d != nil || err != nil {
		t.Fatalf("nowhere: %v %v", d, err)
	}
	if d, err := rc.Distances("empty"); err != nil || len(d) != 0 {
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
	seedsList := seeds(newSeed("a", region("aws", "eu-central-1")), newSeed("b", region("aws", "us-east-1")))
	snap := snapshotOf(seedsList)
	in := Inputs{CloudProfile: cloudProfile("aws"), RegionConfig: rc, Config: Config{Strategy: StrategyMinimalDistance}}
	if got, err := Schedule(newShoot("s"), snap, in); err != nil || got != "a" {
		t.Fatalf("parsed: %q %v", got, err)
	}
	if _, err := Schedule(newShoot("s", shootRegion("aws", "us-east-1")), snap, in); err == nil {
		t.Fatal("malformed entry did not fail the shoot needing it")
	}
}
