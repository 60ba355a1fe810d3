package garden

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// listedPackage is what `go list -json` says of a package that this test
// reads.
type listedPackage struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Imports    []string
	Module     *struct{ Path string }
}

// goList lists the packages patterns match and every package they import,
// from the repository's root.
func goList(t *testing.T, patterns ...string) []listedPackage {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-deps", "-json"}, patterns...)...)
	cmd.Dir = filepath.Join("..", "..")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v: %s", err, stderr.String())
	}
	var pkgs []listedPackage
	for dec := json.NewDecoder(bytes.NewReader(out)); ; {
		var p listedPackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			return pkgs
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
}

const self = "github.com/graft-dev/graft/pkg/garden"

// No daemon and no graftctl command reaches Gardener's API but through this
// package: none imports the dynamic client or names Gardener's core group.
func TestOnlyTheGardenLayerReachesGardenersAPI(t *testing.T) {
	for _, p := range goList(t, "./cmd/...") {
		if p.Module == nil || p.Module.Path != "github.com/graft-dev/graft" || p.ImportPath == self {
			continue
		}
		if i := slices.IndexFunc(p.Imports, func(imp string) bool { return strings.HasPrefix(imp, "k8s.io/client-go/dynamic") }); i >= 0 {
			t.Errorf("%s imports %s: read and write the garden through %s", p.ImportPath, p.Imports[i], self)
		}
		for _, f := range p.GoFiles {
			data, err := os.ReadFile(filepath.Join(p.Dir, f))
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(data, []byte(`"`+GardenerGroup)) {
				t.Errorf("%s names %s: only %s does", filepath.Join(p.Dir, f), GardenerGroup, self)
			}
		}
	}
}

// The scripts and tools under hack/ build on packages of pkg/, never on the
// test suites.
func TestHackImportsNothingUnderTest(t *testing.T) {
	for _, p := range goList(t, "./hack/...") {
		if strings.HasPrefix(p.ImportPath, "github.com/graft-dev/graft/test/") {
			t.Errorf("a program under hack/ depends on %s", p.ImportPath)
		}
	}
}

// The daemons' common parts sit below the garden layer: this package builds
// on pkg/component's, never the other way round.
func TestComponentDoesNotImportTheGardenLayer(t *testing.T) {
	for _, p := range goList(t, "./pkg/component/...") {
		if p.ImportPath == self {
			t.Errorf("pkg/component depends on %s", self)
		}
	}
}
