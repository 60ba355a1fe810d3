package simulate

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/graft-dev/graft/pkg/coretest"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"sigs.k8s.io/yaml"

	"github.com/graft-dev/graft/pkg/garden"
	"github.com/graft-dev/graft/pkg/graftctl/factory"
)

// gardenFrom puts the Seeds, Shoots, CloudProfiles and ConfigMaps of a
// landscape file into fake clients of a Gardener garden, and writes the same
// documents to a file with the shoots in namespace and name order, the order
// --from-cluster schedules them in.
func gardenFrom(t *testing.T, path string) (*factory.Static, string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var gardener, kube []runtime.Object
	var docs, shoots []*unstructured.Unstructured
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for {
		raw, err := reader.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		obj := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(raw, &obj.Object); err != nil || obj.Object == nil {
			continue
		}
		switch obj.GetKind() {
		case "Seed", "CloudProfile":
			gardener = append(gardener, obj)
			docs = append(docs, obj)
		case "Shoot":
			gardener = append(gardener, obj)
			shoots = append(shoots, obj)
		case "ConfigMap":
			cm := &corev1.ConfigMap{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, cm); err != nil {
				t.Fatal(err)
			}
			kube = append(kube, cm)
			docs = append(docs, obj)
		}
	}
	sort.Slice(shoots, func(i, j int) bool {
		return shoots[i].GetNamespace()+"/"+shoots[i].GetName() < shoots[j].GetNamespace()+"/"+shoots[j].GetName()
	})
	var file bytes.Buffer
	for _, obj := range append(docs, shoots...) {
		out, err := yaml.Marshal(obj.Object)
		if err != nil {
			t.Fatal(err)
		}
		file.WriteString("---\n")
		file.Write(out)
	}
	sorted := filepath.Join(t.TempDir(), "sorted.yaml")
	if err := os.WriteFile(sorted, file.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return &factory.Static{API: garden.Gardener, Dynamic: coretest.FakeGardener(gardener...), Kube: kubefake.NewSimpleClientset(kube...)}, sorted
}

func runWith(t *testing.T, f factory.Factory, args ...string) (string, string, error) {
	t.Helper()
	streams, _, out, errOut := genericiooptions.NewTestIOStreams()
	cmd := NewCmdSimulate(f, streams)
	cmd.SetArgs(args)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err := cmd.Execute()
	return out.String(), errOut.String(), err
}

// TestFromClusterDecidesAsFromFiles reads an exported Gardener landscape from
// a Gardener garden and from the export: the decisions are the same.
func TestFromClusterDecidesAsFromFiles(t *testing.T) {
	f, sorted := gardenFrom(t, "testdata/gardener-export.yaml")
	// Objects read from a file are named with their document as well.
	document := regexp.MustCompile(` \(` + regexp.QuoteMeta(sorted) + ` document \d+\)`)
	for _, extra := range [][]string{{"-o", "json"}, {"-o", "json", "--strategy", "MinimalDistance"}, {"--explain"}} {
		want, _, err := runWith(t, nil, append([]string{"-f", sorted}, extra...)...)
		if err != nil {
			t.Fatal(err)
		}
		got, stderr, err := runWith(t, f, append([]string{"--from-cluster"}, extra...)...)
		if err != nil {
			t.Fatalf("simulate --from-cluster %q: %v\n%s", extra, err, stderr)
		}
		want = document.ReplaceAllString(want, "")
		if got != want {
			t.Errorf("simulate --from-cluster %q:\n%s\nwant, as from the files:\n%s", extra, got, want)
		}
		if !strings.Contains(got, "aws-us1") {
			t.Errorf("simulate --from-cluster %q placed no shoot on aws-us1:\n%s", extra, got)
		}
	}
}

func TestFromClusterAndFilesAreExclusive(t *testing.T) {
	_, _, err := runWith(t, &factory.Static{}, "--from-cluster", "-f", "testdata/gardener-export.yaml")
	if err == nil || !strings.Contains(err.Error(), "-f and --from-cluster cannot be combined") {
		t.Errorf("error %v", err)
	}
}
