package garden

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	fakediscovery "k8s.io/client-go/discovery/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/coretest"
)

func TestParseAPI(t *testing.T) {
	for value, want := range map[string]API{"": "", "core.graft.dev": Graft, "core.gardener.cloud": Gardener} {
		if got, err := ParseAPI(value); err != nil || got != want {
			t.Errorf("ParseAPI(%q) = %q, %v; want %q", value, got, err, want)
		}
	}
	_, err := ParseAPI("gardener")
	if err == nil || !strings.Contains(err.Error(), `invalid --api "gardener": must be core.graft.dev`) {
		t.Errorf("ParseAPI(gardener) error %v", err)
	}
}

func serving(groupVersions ...string) *fakediscovery.FakeDiscovery {
	d := &fakediscovery.FakeDiscovery{Fake: &clienttesting.Fake{}}
	for _, gv := range groupVersions {
		d.Resources = append(d.Resources, &metav1.APIResourceList{
			GroupVersion: gv,
			APIResources: []metav1.APIResource{{Name: "seeds", Kind: "Seed"}, {Name: "shoots", Kind: "Shoot", Namespaced: true}},
		})
	}
	return d
}

func TestDiscoverPrefersGraftsAPI(t *testing.T) {
	for name, tc := range map[string]struct {
		served []string
		want   API
	}{
		"graft only":    {[]string{"core.graft.dev/v1alpha1"}, Graft},
		"gardener only": {[]string{"core.gardener.cloud/v1beta1"}, Gardener},
		"both":          {[]string{"core.gardener.cloud/v1beta1", "core.graft.dev/v1alpha1"}, Graft},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := Discover(serving(tc.served...))
			if err != nil || got != tc.want {
				t.Errorf("Discover = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestDiscoverWithNeitherAPISaysSo(t *testing.T) {
	_, err := Discover(serving("apps/v1"))
	if err == nil || !strings.Contains(err.Error(), "serves neither core.graft.dev/v1alpha1 nor core.gardener.cloud/v1beta1 seeds") {
		t.Errorf("Discover error %v", err)
	}
}

func gardenerObject(t *testing.T, manifest string) *unstructured.Unstructured {
	t.Helper()
	obj := &unstructured.Unstructured{}
	if err := json.Unmarshal([]byte(manifest), &obj.Object); err != nil {
		t.Fatal(err)
	}
	return obj
}

const gardenerSeed = `{"apiVersion":"core.gardener.cloud/v1beta1","kind":"Seed","metadata":{"name":"s1","resourceVersion":"5"},
 "spec":{"provider":{"type":"aws","region":"eu-west-1"},"taints":[{"key":"seed.gardener.cloud/protected"}],
  "ingress":{"domain":"ingress.example"},"settings":{"scheduling":{"visible":true}}}}`

func TestGardenerClientReadsSeedsAsGrafts(t *testing.T) {
	client := NewGardener(coretest.FakeGardener(gardenerObject(t, gardenerSeed)))
	seed, err := client.GetSeed(context.Background(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	if seed.APIVersion != "core.graft.dev/v1alpha1" || seed.Kind != "Seed" {
		t.Errorf("apiVersion %s kind %s, want graft's", seed.APIVersion, seed.Kind)
	}
	if seed.Spec.Provider.Region != "eu-west-1" || len(seed.Spec.Taints) != 1 || seed.Spec.Taints[0].Key != "seed.gardener.cloud/protected" {
		t.Errorf("seed spec %+v", seed.Spec)
	}
	list, err := client.ListSeeds(context.Background(), metav1.ListOptions{})
	if err != nil || len(list) != 1 || list[0].Name != "s1" || list[0].ResourceVersion != "5" {
		t.Errorf("ListSeeds = %+v, %v", list, err)
	}
}

func TestSeedTaintsOnGardenerKeepKeyAndValueOnly(t *testing.T) {
	got := Gardener.SeedTaints([]corev1alpha1.SeedTaint{
		{Key: "a", Value: ptr.To("x"), Effect: corev1alpha1.TaintEffectNoSchedule},
		{Key: "b"},
		{Key: "a", Value: ptr.To("x"), Effect: corev1alpha1.TaintEffectNoExecute},
		{Key: "soft", Effect: corev1alpha1.TaintEffectPreferNoSchedule},
	})
	data, _ := json.Marshal(got)
	if string(data) != `[{"key":"a","value":"x"},{"key":"b"}]` {
		t.Errorf("Gardener taints %s, want each key and value that keeps shoots off once", data)
	}
	graft := Graft.SeedTaints([]corev1alpha1.SeedTaint{{Key: "a", Effect: corev1alpha1.TaintEffectNoExecute}})
	if data, _ := json.Marshal(graft); string(data) != `[{"key":"a","effect":"NoExecute"}]` {
		t.Errorf("graft's taints %s", data)
	}
}
