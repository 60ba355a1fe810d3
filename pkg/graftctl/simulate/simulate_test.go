package simulate

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graft-dev/graft/pkg/graftctl/cmdtest"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// run executes `graftctl simulate` with args and returns stdout, stderr and the error.
func run(t *testing.T, stdin string, args ...string) (string, string, error) {
	t.Helper()
	return cmdtest.Run(t, NewCmdSimulate, nil, stdin, args...)
}

func TestGolden(t *testing.T) {
	for _, tc := range []struct {
		golden string
		args   []string
	}{
		{"gardener-export.table", []string{"-f", "testdata/gardener-export.yaml"}},
		{"gardener-export.json", []string{"-f", "testdata/gardener-export.yaml", "-o", "json"}},
		{"gardener-export.minimal-distance.json", []string{"-f", "testdata/gardener-export.yaml", "-o", "json", "--strategy", "MinimalDistance"}},
		{"gardener-export.explain", []string{"-f", "testdata/gardener-export.yaml", "--explain"}},
		{"graft-landscape.table", []string{"-f", "testdata/graft-landscape.yaml"}},
		{"graft-landscape.explain", []string{"-f", "testdata/graft-landscape.yaml", "--explain", "--strategy", "MinimalDistance"}},
		{"graft-landscape.scored.explain", []string{"-f", "testdata/graft-landscape.yaml", "--explain", "--score-weight", "LeastAllocated=2,PreferNoSchedule=1"}},
		{"graft-landscape.explain.json", []string{"-f", "testdata/graft-landscape.yaml", "--explain", "-o", "json", "--strategy", "MinimalDistance"}},
		{"offerings.explain", []string{"-f", "testdata/offerings.yaml", "--explain"}},
		{"rebalance.plan", []string{"-f", "testdata/rebalance.yaml", "--strategy", "MinimalDistance", "--improve", "Rebalance,ComeHome"}},
		{"rebalance.marks.plan", []string{"-f", "testdata/rebalance.yaml", "--strategy", "MinimalDistance", "--improve", "Rebalance", "--plugin-args", `Rebalance={"highUtilisation":70,"lowUtilisation":50}`}},
		{"rebalance-live.plan", []string{"-f", "testdata/rebalance-live.yaml", "--strategy", "MinimalDistance", "--improve", "Rebalance,ComeHome", "--live-migration=Prefer", "--live-gardenlet-versions=v1.160.0"}},
		{"malformed-region-config.json", []string{"-f", "testdata/malformed-region-config.yaml", "-o", "json", "--strategy", "MinimalDistance"}},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			stdout, stderr, err := run(t, "", tc.args...)
			if err != nil {
				t.Fatalf("simulate %v: %v", tc.args, err)
			}
			got := stdout
			if stderr != "" {
				got += "--- stderr ---\n" + stderr
			}
			path := filepath.Join("testdata", tc.golden+".golden")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("output differs from %s (run with -update to accept):\n--- got ---\n%s\n--- want ---\n%s", path, got, want)
			}
		})
	}
}

func TestStdinAndSeveralFiles(t *testing.T) {
	profile := "apiVersion: core.graft.dev/v1alpha1\nkind: CloudProfile\nmetadata: {name: aws}\nspec: {type: aws}\n"
	stdout, _, err := run(t, profile, "-f", "-", "-f", "testdata/shoot-only.yaml", "-o", "json")
	if err != nil {
		t.Fatal(err)
	}
	want := `{"shoot":"garden-x/lonely","seed":"","error":"none of the 0 seeds is valid for scheduling (not deleting, visible and ready)"}` + "\n"
	if stdout != want {
		t.Fatalf("got %q, want %q", stdout, want)
	}
}

// A shoot of a NamespacedCloudProfile is decided with the profile's merged
// spec: its seed selector, here, which keeps it off the seed the cluster-wide
// profile of the same name would take; in Gardener's group as in graft's.
func TestNamespacedCloudProfile(t *testing.T) {
	for _, group := range []string{"core.graft.dev/v1alpha1", "core.gardener.cloud/v1beta1"} {
		t.Run(group, func(t *testing.T) {
			landscape := strings.ReplaceAll(`apiVersion: GROUP
kind: Seed
metadata: {name: plain, labels: {tier: plain}}
spec: {provider: {type: aws, region: eu-west-1}, networks: {pods: 10.0.0.0/16, services: 10.1.0.0/16}}
status: {conditions: [{type: GardenletReady, status: "True"}, {type: SeedSystemComponentsHealthy, status: "True"}], lastOperation: {type: Reconcile, state: Succeeded, progress: 100}}
---
apiVersion: GROUP
kind: Seed
metadata: {name: dedicated, labels: {tier: dedicated}}
spec: {provider: {type: aws, region: eu-west-1}, networks: {pods: 10.2.0.0/16, services: 10.3.0.0/16}}
status: {conditions: [{type: GardenletReady, status: "True"}, {type: SeedSystemComponentsHealthy, status: "True"}], lastOperation: {type: Reconcile, state: Succeeded, progress: 100}}
---
apiVersion: GROUP
kind: CloudProfile
metadata: {name: aws}
spec: {type: aws, seedSelector: {matchLabels: {tier: plain}}}
---
apiVersion: GROUP
kind: NamespacedCloudProfile
metadata: {name: aws, namespace: garden-dev}
spec: {parent: {kind: CloudProfile, name: aws}}
status: {cloudProfileSpec: {type: aws, seedSelector: {matchLabels: {tier: dedicated}}}}
---
apiVersion: GROUP
kind: Shoot
metadata: {name: own, namespace: garden-dev}
spec: {cloudProfile: {kind: NamespacedCloudProfile, name: aws}, region: eu-west-1, provider: {type: aws}}
---
apiVersion: GROUP
kind: Shoot
metadata: {name: shared, namespace: garden-dev}
spec: {cloudProfile: {kind: CloudProfile, name: aws}, region: eu-west-1, provider: {type: aws}}
`, "GROUP", group)
			stdout, _, err := run(t, landscape, "-f", "-", "-o", "json")
			if err != nil {
				t.Fatal(err)
			}
			want := `{"shoot":"garden-dev/own","seed":"dedicated","error":""}` + "\n" + `{"shoot":"garden-dev/shared","seed":"plain","error":""}` + "\n"
			if stdout != want {
				t.Fatalf("got %q, want %q", stdout, want)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		args  []string
		stdin string
		want  string
	}{
		{"no file", nil, "", "must specify at least one landscape file with -f"},
		{"bad output and strategy", []string{"-f", "testdata/graft-landscape.yaml", "-o", "yaml", "--strategy", "Nearest"},
			"", `unsupported output format "yaml": use table or json` + "\n" + `unknown strategy "Nearest": use SameRegion or MinimalDistance`},
		{"bad score plugin", []string{"-f", "testdata/graft-landscape.yaml", "--score-weight", "Magic=1"}, "", `unknown score plugin "Magic"`},
		// Once wrapped silently to int32: 2^32+1 was a weight of 1.
		{"score weight too large", []string{"-f", "testdata/graft-landscape.yaml", "--score-weight", "LeastAllocated=4294967297"}, "", "score plugin LeastAllocated: weight 4294967297 is too large"},
		{"missing file", []string{"-f", "testdata/nope.yaml"}, "", "open testdata/nope.yaml: no such file or directory"},
		{"not an improving plugin", []string{"-f", "testdata/rebalance.yaml", "--improve", "OverCapacity"}, "", `--improve "OverCapacity": not an improving plugin; use ComeHome, Rebalance`},
		{"bad plugin arguments", []string{"-f", "testdata/rebalance.yaml", "--improve", "Rebalance", "--plugin-args", `Rebalance={"lowUtilisation":90}`}, "",
			"plugins[0].args.lowUtilisation: Invalid value: 90: must be below highUtilisation"},
		{"live migration without --improve", []string{"-f", "testdata/rebalance.yaml", "--live-migration=Prefer"}, "", "--live-migration Prefer needs --improve"},
		{"bad gardenlet version", []string{"-f", "testdata/rebalance.yaml", "--improve", "Rebalance", "--live-migration=Prefer", "--live-gardenlet-versions=latest"}, "", `--live-gardenlet-versions[0]: Invalid value: "latest"`},
		{"arguments of a plugin not run", []string{"-f", "testdata/rebalance.yaml", "--improve", "Rebalance", "--plugin-args", `ComeHome={}`}, "", "--plugin-args ComeHome: the plugin is not in --improve"},
		{"missing cloud profile", []string{"-f", "testdata/shoot-only.yaml"}, "",
			`testdata/shoot-only.yaml document 1 (Shoot garden-x/lonely): cloud profile "aws" is not in the landscape`},
		{"unknown kind", []string{"-f", "-"}, "apiVersion: core.graft.dev/v1alpha1\nkind: Shot\nmetadata: {name: a}\n",
			`stdin document 1 (Shot a): unknown kind "Shot" in core.graft.dev/v1alpha1`},
		{"malformed YAML", []string{"-f", "-"}, "kind: Seed\n  apiVersion: [\n", "stdin document 1: malformed YAML"},
		{"missing namespaced cloud profile", []string{"-f", "-"}, "apiVersion: core.graft.dev/v1alpha1\nkind: Shoot\nmetadata: {name: a, namespace: ns}\nspec: {cloudProfile: {kind: NamespacedCloudProfile, name: x}, region: r, provider: {type: aws}}\n",
			`stdin document 1 (Shoot ns/a): NamespacedCloudProfile ns/x of shoot ns/a not found`},
		{"unknown cloud profile kind", []string{"-f", "-"}, "apiVersion: core.graft.dev/v1alpha1\nkind: Shoot\nmetadata: {name: a, namespace: ns}\nspec: {cloudProfile: {kind: RegionalProfile, name: x}, region: r, provider: {type: aws}}\n",
			`stdin document 1 (Shoot ns/a): cloud profile kind "RegionalProfile" is not supported: CloudProfile or NamespacedCloudProfile`},
		{"duplicate cloud profile", []string{"-f", "testdata/malformed-region-config.yaml", "-f", "testdata/malformed-region-config.yaml"}, "",
			`testdata/malformed-region-config.yaml document 1 (CloudProfile aws): cloud profile "aws" is already defined in testdata/malformed-region-config.yaml document 1`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := run(t, tc.stdin, tc.args...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestHelp(t *testing.T) {
	var out bytes.Buffer
	cmd := NewCmdSimulate(nil, genericiooptions.IOStreams{Out: &out, ErrOut: &out})
	cmd.SetOut(&out)
	cmd.SetArgs([]string{"--help"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"graftctl simulate -f garden-export.yaml", "--strategy", "--explain", "--score-weight"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("help lacks %q", want)
		}
	}
}
