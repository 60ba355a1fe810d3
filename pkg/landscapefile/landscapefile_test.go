package landscapefile

import (
	"strings"
	"testing"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

const gardenerExport = `# an export of a Gardener landscape
---
apiVersion: core.gardener.cloud/v1beta1
kind: Project
metadata:
  name: dev
spec:
  namespace: garden-dev
---
apiVersion: core.gardener.cloud/v1beta1
kind: Seed
metadata:
  name: aws-eu1
  labels:
    env: prod
spec:
  provider:
    type: aws
    region: eu-west-1
    zones: [a, b, c]
  networks:
    pods: 10.96.0.0/11
    services: 10.64.0.0/13
  taints:
  - key: seed.gardener.cloud/protected
  dns:
    provider: {type: aws-route53}
status:
  allocatable:
    shoots: "250"
  conditions:
  - type: GardenletReady
    status: "True"
---
# comment only
---
apiVersion: v1
kind: List
items:
- apiVersion: core.gardener.cloud/v1beta1
  kind: Shoot
  metadata: {name: a, namespace: garden-dev}
  spec:
    cloudProfileName: aws
    region: eu-west-1
    provider: {type: aws, workers: [{name: w, zones: [a]}]}
    kubernetes: {version: "1.31"}
- apiVersion: v1
  kind: Secret
  metadata: {name: s, namespace: garden-dev}
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: regions
    namespace: garden
  data:
    eu-west-1: "eu-central-1: 10"
---
apiVersion: core.graft.dev/v1alpha1
kind: CloudProfile
metadata: {name: aws}
spec: {type: aws}
`

func TestReadGardenerExport(t *testing.T) {
	l, err := Read(strings.NewReader(gardenerExport), "export.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Seeds) != 1 || len(l.Shoots) != 1 || len(l.CloudProfiles) != 1 || len(l.ConfigMaps) != 1 {
		t.Fatalf("read %d seeds, %d shoots, %d profiles, %d configmaps", len(l.Seeds), len(l.Shoots), len(l.CloudProfiles), len(l.ConfigMaps))
	}
	seed := l.Seeds[0]
	if seed.APIVersion != "core.graft.dev/v1alpha1" || seed.Spec.Provider.Region != "eu-west-1" || len(seed.Spec.Taints) != 1 ||
		seed.Status.Allocatable.Name("shoots", "").Value() != 250 || seed.Labels["env"] != "prod" {
		t.Fatalf("seed %+v", seed)
	}
	shoot := l.Shoots[0]
	if shoot.APIVersion != "core.graft.dev/v1alpha1" || *shoot.Spec.CloudProfileName != "aws" || shoot.Spec.Provider.Workers[0].Zones[0] != "a" {
		t.Fatalf("shoot %+v", shoot)
	}
	if d, ok := l.DocumentOf(shoot); !ok || d.String() != "export.yaml document 3 item 1 (Shoot garden-dev/a)" {
		t.Fatalf("document of shoot: %v", d)
	}
	if d, _ := l.DocumentOf(l.ConfigMaps[0]); d.String() != "export.yaml document 3 item 3 (ConfigMap garden/regions)" {
		t.Fatalf("document of configmap: %v", d)
	}
	var skipped []string
	for _, d := range l.Skipped {
		skipped = append(skipped, d.String())
	}
	if got := strings.Join(skipped, "; "); got != "export.yaml document 3 item 2 (Secret garden-dev/s)" {
		t.Fatalf("skipped: %s", got)
	}
	if p := l.Project("garden-dev"); p != "dev" {
		t.Fatalf("project of garden-dev: %q, want dev", p)
	}
}

func TestReadErrors(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"malformed YAML", "apiVersion: v1\nkind: [ConfigMap\n", "in.yaml document 1: malformed YAML"},
		{"not a map", "- a\n- b\n", "in.yaml document 1: not an object"},
		{"no kind", "apiVersion: v1\nmetadata: {name: x}\n", "in.yaml document 1: apiVersion and kind are required"},
		{"unknown kind of our group", "---\napiVersion: core.graft.dev/v1alpha1\nkind: Sed\nmetadata: {name: x}\n", `in.yaml document 1 (Sed x): unknown kind "Sed" in core.graft.dev/v1alpha1`},
		{"wrong version", "apiVersion: core.gardener.cloud/v1alpha1\nkind: Seed\nmetadata: {name: x}\n", "unsupported version v1alpha1 of core.gardener.cloud: use core.gardener.cloud/v1beta1"},
		{"wrong type", "apiVersion: core.graft.dev/v1alpha1\nkind: Seed\nmetadata: {name: x}\nspec:\n  provider: {zones: a}\n", "in.yaml document 1 (Seed x): cannot unmarshal string into Go struct field"},
		{"second document", "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: [1]\n", "in.yaml document 2 (ConfigMap x)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tc.in), "in.yaml")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestFieldNamesAreCaseSensitive(t *testing.T) {
	l, err := Read(strings.NewReader("apiVersion: core.graft.dev/v1alpha1\nkind: Shoot\nmetadata: {name: a}\nspec:\n  Region: wrong\n  region: right\n  provider: {type: aws}\n"), "x")
	if err != nil {
		t.Fatal(err)
	}
	if l.Shoots[0].Spec.Region != "right" {
		t.Fatalf("region %q", l.Shoots[0].Spec.Region)
	}
}

// The landscape file reader applies the same rules to Gardener documents and
// leaves graft's own alone.
func TestReadAppliesGardenerSemantics(t *testing.T) {
	const seeds = `
apiVersion: core.gardener.cloud/v1beta1
kind: Seed
metadata: {name: g}
spec:
  taints: [{key: k, effect: NoExecute}]
---
apiVersion: core.graft.dev/v1alpha1
kind: Seed
metadata: {name: own}
spec:
  taints: [{key: k, effect: NoExecute}]
`
	l, err := Read(strings.NewReader(seeds), "seeds.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got := l.Seeds[0].Spec.Taints[0].Effect; got != v1alpha1.TaintEffectNoSchedule {
		t.Errorf("Gardener seed's taint effect %q, want NoSchedule", got)
	}
	if got := l.Seeds[1].Spec.Taints[0].Effect; got != v1alpha1.TaintEffectNoExecute {
		t.Errorf("graft seed's taint effect %q, want NoExecute kept", got)
	}
}
