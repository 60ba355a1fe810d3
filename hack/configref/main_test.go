package main

import (
	"os"
	"path/filepath"
	"testing"
)

// The committed reference is what the types give: a field added, renamed,
// re-defaulted or re-documented without running the generator fails here.
func TestReferenceIsCurrent(t *testing.T) {
	root := filepath.Join("..", "..")
	want, err := generate(filepath.Join(root, "apis", "config", "v1alpha1"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(root, "docs", "configuration.md"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("docs/configuration.md is not current: run go run ./hack/configref")
	}
}
