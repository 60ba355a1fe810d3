package main

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"github.com/google/go-containerregistry/pkg/v1/validate"
)

var buildTime = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// archiveFile is one member of a tar: its header and content.
type archiveFile struct {
	hdr  *tar.Header
	data []byte
}

func readTar(t *testing.T, r io.Reader) map[string]archiveFile {
	t.Helper()
	files := map[string]archiveFile{}
	tr := tar.NewReader(r)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return files
		}
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if _, dup := files[hdr.Name]; dup {
			t.Errorf("%s appears twice", hdr.Name)
		}
		files[hdr.Name] = archiveFile{hdr: hdr, data: data}
	}
}

// openArchive reads an archive written by writeArchive back the way an
// importer does: it checks the files an OCI image layout must have, then
// unpacks it and opens it as a layout, validating every digest and size.
func openArchive(t *testing.T, file string) (v1.IndexManifest, v1.Image) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	files := readTar(t, f)

	var layoutFile struct {
		Version string `json:"imageLayoutVersion"`
	}
	if err := json.Unmarshal(files["oci-layout"].data, &layoutFile); err != nil || layoutFile.Version != "1.0.0" {
		t.Fatalf("oci-layout %q: want imageLayoutVersion 1.0.0 (%v)", files["oci-layout"].data, err)
	}
	index, err := v1.ParseIndexManifest(bytes.NewReader(files["index.json"].data))
	if err != nil {
		t.Fatalf("index.json: %v", err)
	}
	dir := t.TempDir()
	for name, af := range files {
		if !strings.HasPrefix(name, "blobs/sha256/") && name != "oci-layout" && name != "index.json" && name != "blobs/" {
			t.Errorf("unexpected file %s in the archive", name)
		}
		if af.hdr.Typeflag == tar.TypeDir {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, af.data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	idx, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := validate.Index(idx); err != nil {
		t.Fatalf("the archive's image does not hold together: %v", err)
	}
	if len(index.Manifests) != 1 {
		t.Fatalf("index.json lists %d manifests, want 1", len(index.Manifests))
	}
	img, err := idx.Image(index.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	return *index, img
}

// layerFiles is the content of the image's one layer.
func layerFiles(t *testing.T, img v1.Image) map[string]archiveFile {
	t.Helper()
	layers, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	if len(layers) != 1 {
		t.Fatalf("%d layers, want 1", len(layers))
	}
	if mt, _ := layers[0].MediaType(); mt != types.OCILayer {
		t.Errorf("layer media type %s, want %s", mt, types.OCILayer)
	}
	rc, err := layers[0].Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	return readTar(t, rc)
}

func checkName(t *testing.T, index v1.IndexManifest, fullName string) {
	t.Helper()
	desc := index.Manifests[0]
	if desc.MediaType != types.OCIManifestSchema1 {
		t.Errorf("manifest media type %s, want %s", desc.MediaType, types.OCIManifestSchema1)
	}
	if got := desc.Annotations[annotationContainerdName]; got != fullName {
		t.Errorf("%s = %q, want %q", annotationContainerdName, got, fullName)
	}
	if got := desc.Annotations[annotationOCIRefName]; got != fullName {
		t.Errorf("%s = %q, want %q", annotationOCIRefName, got, fullName)
	}
	if desc.Platform == nil || desc.Platform.OS != "linux" || desc.Platform.Architecture != runtime.GOARCH {
		t.Errorf("platform %+v, want linux/%s", desc.Platform, runtime.GOARCH)
	}
}

type wantFile struct {
	dir      bool
	mode     int64
	uid, gid int
	data     []byte // nil: not checked
}

func checkLayer(t *testing.T, got map[string]archiveFile, want map[string]wantFile) {
	t.Helper()
	for name, w := range want {
		if w.dir {
			name += "/"
		}
		f, ok := got[name]
		if !ok {
			t.Errorf("%s missing from the layer", name)
			continue
		}
		wantType := byte(tar.TypeReg)
		if w.dir {
			wantType = tar.TypeDir
		}
		if f.hdr.Typeflag != wantType || f.hdr.Mode != w.mode || f.hdr.Uid != w.uid || f.hdr.Gid != w.gid {
			t.Errorf("%s: type %c mode %o owner %d:%d, want type %c mode %o owner %d:%d",
				name, f.hdr.Typeflag, f.hdr.Mode, f.hdr.Uid, f.hdr.Gid, wantType, w.mode, w.uid, w.gid)
		}
		if !f.hdr.ModTime.Equal(buildTime) {
			t.Errorf("%s: mtime %v, want the build time %v", name, f.hdr.ModTime, buildTime)
		}
		if w.data != nil && !bytes.Equal(f.data, w.data) {
			t.Errorf("%s: content %q, want %q", name, f.data, w.data)
		}
	}
	for name := range got {
		if _, ok := want[strings.TrimSuffix(name, "/")]; !ok {
			t.Errorf("unexpected %s in the layer", name)
		}
	}
}

func writeFile(t *testing.T, p string, data string) string {
	t.Helper()
	if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// fakeBinaries are stand-ins for the graft binaries: assembling the image
// does not look inside them, and compiling the real ones takes minutes.
// Their mode on disk is 0600 so that the test sees the image set 0755.
func fakeBinaries(t *testing.T) (dir string, paths []string) {
	dir = t.TempDir()
	for _, b := range []string{"graft-scheduler", "graftctl"} {
		paths = append(paths, writeFile(t, filepath.Join(dir, b), "binary "+b))
	}
	return dir, paths
}

func buildArchive(t *testing.T, s spec, ref string) string {
	t.Helper()
	tag, err := parseRef(ref)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	img, err := buildImage(s, tmp)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "image.tar")
	if _, err := writeArchive(out, img, tag, s.Arch); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestGraftImage(t *testing.T) {
	_, bins := fakeBinaries(t)
	ca := writeFile(t, filepath.Join(t.TempDir(), "ca.crt"), "certificates")
	s, err := graftSpec(runtime.GOARCH, buildTime, bins, ca)
	if err != nil {
		t.Fatal(err)
	}
	index, img := openArchive(t, buildArchive(t, s, "localhost/graft/graft:v0.1.0"))
	checkName(t, index, "localhost/graft/graft:v0.1.0")

	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if cf.OS != "linux" || cf.Architecture != runtime.GOARCH {
		t.Errorf("config platform %s/%s, want linux/%s", cf.OS, cf.Architecture, runtime.GOARCH)
	}
	if !cf.Created.Equal(buildTime) {
		t.Errorf("created %v, want %v", cf.Created, buildTime)
	}
	if cf.Config.User != "65532:65532" {
		t.Errorf("user %q, want 65532:65532 (the Dockerfile's and the charts')", cf.Config.User)
	}
	if strings.Join(cf.Config.Entrypoint, " ") != "/usr/local/bin/graftctl" || len(cf.Config.Cmd) != 0 {
		t.Errorf("entrypoint %q cmd %q, want the Dockerfile's [/usr/local/bin/graftctl] and no cmd", cf.Config.Entrypoint, cf.Config.Cmd)
	}
	if cf.Config.WorkingDir != "/home/nonroot" {
		t.Errorf("working dir %q, want /home/nonroot", cf.Config.WorkingDir)
	}
	if !slices.Contains(cf.Config.Env, "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt") || !slices.Contains(cf.Config.Env, defaultPath) {
		t.Errorf("env %q lacks PATH or SSL_CERT_FILE", cf.Config.Env)
	}

	checkLayer(t, layerFiles(t, img), map[string]wantFile{
		"etc":                               {dir: true, mode: 0o755},
		"etc/passwd":                        {mode: 0o644, data: []byte(passwdFile)},
		"etc/group":                         {mode: 0o644, data: []byte(groupFile)},
		"etc/nsswitch.conf":                 {mode: 0o644, data: []byte(nsswitchFile)},
		"etc/ssl":                           {dir: true, mode: 0o755},
		"etc/ssl/certs":                     {dir: true, mode: 0o755},
		"etc/ssl/certs/ca-certificates.crt": {mode: 0o644, data: []byte("certificates")},
		"home":                              {dir: true, mode: 0o755},
		"home/nonroot":                      {dir: true, mode: 0o700, uid: 65532, gid: 65532},
		"tmp":                               {dir: true, mode: 0o1777},
		"usr":                               {dir: true, mode: 0o755},
		"usr/local":                         {dir: true, mode: 0o755},
		"usr/local/bin":                     {dir: true, mode: 0o755},
		"usr/local/bin/graft-scheduler":     {mode: 0o755, data: []byte("binary graft-scheduler")},
		"usr/local/bin/graftctl":            {mode: 0o755, data: []byte("binary graftctl")},
	})
	if !strings.Contains(passwdFile, "nonroot:x:65532:65532:nonroot:/home/nonroot:") {
		t.Errorf("/etc/passwd does not give 65532 the home the config names:\n%s", passwdFile)
	}
}

func TestGraftImageWithoutCACertificates(t *testing.T) {
	_, bins := fakeBinaries(t)
	s, err := graftSpec(runtime.GOARCH, buildTime, bins, "")
	if err != nil {
		t.Fatal(err)
	}
	_, img := openArchive(t, buildArchive(t, s, "localhost/graft/graft:dev"))
	for name := range layerFiles(t, img) {
		if strings.HasPrefix(name, "etc/ssl") {
			t.Errorf("%s in an image built without CA certificates", name)
		}
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range cf.Config.Env {
		if strings.HasPrefix(e, "SSL_CERT_FILE=") {
			t.Errorf("env %s names a file the image does not have", e)
		}
	}
}

func TestGraftSpecNeedsTheEntrypoint(t *testing.T) {
	dir := t.TempDir()
	bins := []string{writeFile(t, filepath.Join(dir, "graft-scheduler"), "x")}
	if _, err := graftSpec(runtime.GOARCH, buildTime, bins, ""); err == nil || !strings.Contains(err.Error(), "graftctl") {
		t.Fatalf("graftSpec without graftctl: err %v, want one naming graftctl", err)
	}
}

// The same inputs give the same image digest: the layer carries no build
// machine's times or user names.
func TestSameInputsSameDigest(t *testing.T) {
	_, bins := fakeBinaries(t)
	var digests []v1.Hash
	for range 2 {
		s, err := graftSpec(runtime.GOARCH, buildTime, bins, "")
		if err != nil {
			t.Fatal(err)
		}
		index, _ := openArchive(t, buildArchive(t, s, "localhost/graft/graft:dev"))
		digests = append(digests, index.Manifests[0].Digest)
		// A later mtime on disk must not change the layer.
		for _, b := range bins {
			later := time.Now().Add(time.Hour)
			if err := os.Chtimes(b, later, later); err != nil {
				t.Fatal(err)
			}
		}
	}
	if digests[0] != digests[1] {
		t.Fatalf("two builds of the same inputs: %s and %s", digests[0], digests[1])
	}
}

// TestPauseImage runs the command as `make images` does, compiling the pause
// program for real.
func TestPauseImage(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles the pause program")
	}
	out := filepath.Join(t.TempDir(), "images", "pause.tar")
	var stdout, stderr bytes.Buffer
	args := []string{"pause", "--out", out, "--version", "v1.2.3+meta", "--build-date", buildTime.Format(time.RFC3339)}
	if code := run(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("run %q: exit %d\n%s", args, code, stderr.String())
	}
	// The tag is derived from the version, '+' being no tag character.
	const wantRef = "localhost/graft/pause:v1.2.3-meta"
	if !strings.Contains(stdout.String(), wantRef) {
		t.Errorf("output %q does not name %s", stdout.String(), wantRef)
	}
	index, img := openArchive(t, out)
	checkName(t, index, wantRef)
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(cf.Config.Entrypoint, " ") != "/pause" || cf.Config.User != "65535:65535" {
		t.Errorf("entrypoint %q user %q, want [/pause] as 65535:65535", cf.Config.Entrypoint, cf.Config.User)
	}
	files := layerFiles(t, img)
	checkLayer(t, files, map[string]wantFile{"pause": {mode: 0o755}})
	bin := filepath.Join(t.TempDir(), "pause")
	if err := os.WriteFile(bin, files["pause"].data, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := checkStatic(bin); err != nil {
		t.Errorf("the image's pause binary: %v", err)
	}
}

func TestParseRef(t *testing.T) {
	for ref, ok := range map[string]bool{
		"localhost/graft/graft:v0.1.0": true,
		"registry.example:5000/g:dev":  true,
		"graft:dev":                    false, // would become docker.io/library/graft:dev
		"localhost/graft/graft":        false, // no tag
		"localhost/graft/graft:a+b":    false,
	} {
		if _, err := parseRef(ref); (err == nil) != ok {
			t.Errorf("parseRef(%q): err %v, want ok=%v", ref, err, ok)
		}
	}
}

func TestDefaultRef(t *testing.T) {
	for version, want := range map[string]string{
		"v0.1.0":                  "localhost/graft/graft:v0.1.0",
		"v0.1.0-3-gabcdef0-dirty": "localhost/graft/graft:v0.1.0-3-gabcdef0-dirty",
		"v1.0.0+build.5":          "localhost/graft/graft:v1.0.0-build.5",
		"-odd":                    "localhost/graft/graft:v-odd",
		strings.Repeat("x", 200):  "localhost/graft/graft:" + strings.Repeat("x", 128),
	} {
		got := defaultRef("graft", version)
		if got != want {
			t.Errorf("defaultRef(%q) = %q, want %q", version, got, want)
		}
		if _, err := parseRef(got); err != nil {
			t.Errorf("defaultRef(%q) = %q, which parseRef refuses: %v", version, got, err)
		}
	}
}

func TestCheckStaticRefusesADynamicBinary(t *testing.T) {
	// Any dynamically linked program of this machine will do.
	for _, p := range []string{"/bin/sh", "/usr/bin/env", "/bin/true"} {
		if _, err := os.Stat(p); err != nil {
			continue
		}
		if err := checkStatic(p); err != nil {
			return
		}
	}
	t.Skip("no dynamically linked program found to check against")
}

func TestRunUsage(t *testing.T) {
	for _, args := range [][]string{nil, {"other"}, {"graft"}, {"pause", "--out", "x.tar", "extra"}} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), args, &stdout, &stderr); code != 2 {
			t.Errorf("run %q: exit %d, want 2 (usage)", args, code)
		}
	}
}

func TestStampCheck(t *testing.T) {
	good := stamp{Version: "v0.1.0", GitCommit: "abc", GitTreeState: "clean", BuildDate: "2026-01-02T03:04:05Z"}
	if err := good.check(); err != nil {
		t.Fatal(err)
	}
	spaced := good
	spaced.Version = "v0.1.0 -X main.evil=1"
	if err := spaced.check(); err == nil {
		t.Error("a version with a space was accepted into -ldflags")
	}
	badDate := good
	badDate.BuildDate = "yesterday"
	if err := badDate.check(); err == nil {
		t.Error("a build date that is not RFC 3339 was accepted")
	}
	want := "-s -w -X k8s.io/component-base/version.gitVersion=v0.1.0 -X k8s.io/component-base/version.gitCommit=abc" +
		" -X k8s.io/component-base/version.gitTreeState=clean -X k8s.io/component-base/version.buildDate=2026-01-02T03:04:05Z"
	if got := good.ldflags(); got != want {
		t.Errorf("ldflags %q, want %q", got, want)
	}
}
