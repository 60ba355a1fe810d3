package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Annotations on the index.json entry that name the image on import; both
// hold the full reference. `ctr images import` reads containerd's own key
// first and otherwise takes the OCI one, as a name when it is a full
// reference but only as a tag, prefixed with "import-<date>", when it is not;
// other tools know only the OCI key.
const (
	annotationContainerdName = "io.containerd.image.name"
	annotationOCIRefName     = "org.opencontainers.image.ref.name"
)

// entry is one file or directory of an image's single layer.
type entry struct {
	// Path inside the image, relative to its root ("usr/local/bin/graftctl").
	Path     string
	Dir      bool
	Mode     int64 // permission bits, including sticky
	UID, GID int
	// The content of a file: Data, or the host file Source when Data is nil
	// (binaries are copied from disk rather than held in memory).
	Data   []byte
	Source string
}

// spec is everything an image is made of, decided before any file is read.
type spec struct {
	Arch    string
	Created time.Time
	Config  v1.Config
	// Entries in the order they are written: every directory before what it
	// holds.
	Entries []entry
	// CreatedBy is recorded in the layer's history, for `ctr images inspect`
	// and friends to show where the layer came from.
	CreatedBy string
}

// parseRef checks that ref names a registry, a repository and a tag. A short
// name ("graft:dev") is refused rather than expanded: containerd and the
// kubelet expand it to docker.io/library/..., so the image would be imported
// under a name the chart values do not spell.
func parseRef(ref string) (name.Tag, error) {
	tag, err := name.NewTag(ref, name.StrictValidation)
	if err != nil {
		return name.Tag{}, fmt.Errorf("image reference %q: %w (want registry/repository:tag, e.g. localhost/graft/graft:dev)", ref, err)
	}
	return tag, nil
}

// buildImage writes the layer of s as a gzip'd tar into dir and returns the
// image around it.
func buildImage(s spec, dir string) (v1.Image, error) {
	layerPath := filepath.Join(dir, "layer.tar.gz")
	if err := writeLayer(layerPath, s.Entries, s.Created); err != nil {
		return nil, fmt.Errorf("writing the layer: %w", err)
	}
	layer, err := tarball.LayerFromFile(layerPath, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, fmt.Errorf("reading the layer back: %w", err)
	}
	// empty.Image has Docker media types; containerd takes both, but an OCI
	// layout should hold OCI manifests.
	base := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	img, err := mutate.Append(base, mutate.Addendum{
		Layer:   layer,
		History: v1.History{Created: v1.Time{Time: s.Created}, CreatedBy: s.CreatedBy},
	})
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.Architecture = s.Arch
	cf.OS = "linux"
	cf.Created = v1.Time{Time: s.Created}
	cf.Config = s.Config
	return mutate.ConfigFile(img, cf)
}

// writeLayer writes entries as a gzip'd tar to file. Every header carries the
// same time and no user or group names, so the same inputs give the same
// layer digest on every build.
func writeLayer(file string, entries []entry, mtime time.Time) (err error) {
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	// The archive is imported on this machine and never pulled over a
	// network: a quick build matters more than the last few megabytes.
	zw, err := gzip.NewWriterLevel(f, gzip.BestSpeed)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(zw)
	for _, e := range entries {
		if err := writeEntry(tw, e, mtime); err != nil {
			return fmt.Errorf("%s: %w", e.Path, err)
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return zw.Close()
}

func writeEntry(tw *tar.Writer, e entry, mtime time.Time) error {
	hdr := &tar.Header{
		Name:    e.Path,
		Mode:    e.Mode,
		Uid:     e.UID,
		Gid:     e.GID,
		ModTime: mtime,
		Format:  tar.FormatPAX,
	}
	if e.Dir {
		hdr.Typeflag = tar.TypeDir
		hdr.Name += "/"
		return tw.WriteHeader(hdr)
	}
	hdr.Typeflag = tar.TypeReg
	if e.Data != nil {
		hdr.Size = int64(len(e.Data))
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		_, err := tw.Write(e.Data)
		return err
	}
	src, err := os.Open(e.Source)
	if err != nil {
		return err
	}
	defer src.Close()
	info, err := src.Stat()
	if err != nil {
		return err
	}
	hdr.Size = info.Size()
	if err := tw.WriteHeader(hdr); err != nil {
		return err
	}
	// A file that changes size while it is copied would give a header that
	// lies about it; tar.Writer reports that as an error.
	_, err = io.Copy(tw, src)
	return err
}

// writeArchive writes img as an OCI image layout in a tar to out, naming it
// ref. It writes to a temporary file first so that a failed build never
// leaves a truncated archive behind for the node to import.
func writeArchive(out string, img v1.Image, ref name.Tag, arch string) (v1.Hash, error) {
	idx := mutate.AppendManifests(empty.Index, mutate.IndexAddendum{
		Add: img,
		Descriptor: v1.Descriptor{
			Platform: &v1.Platform{OS: "linux", Architecture: arch},
			Annotations: map[string]string{
				annotationContainerdName: ref.Name(),
				annotationOCIRefName:     ref.Name(),
			},
		},
	})
	digest, err := img.Digest()
	if err != nil {
		return v1.Hash{}, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".*")
	if err != nil {
		return v1.Hash{}, err
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	if err := writeLayout(tmp, idx, img); err != nil {
		tmp.Close()
		return v1.Hash{}, err
	}
	if err := tmp.Close(); err != nil {
		return v1.Hash{}, err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return v1.Hash{}, err
	}
	return digest, os.Rename(tmp.Name(), out)
}

// writeLayout writes the files of an OCI image layout holding idx, whose one
// image is img, as a tar to w.
func writeLayout(w io.Writer, idx v1.ImageIndex, img v1.Image) error {
	tw := tar.NewWriter(w)
	layoutFile, err := json.Marshal(struct {
		Version string `json:"imageLayoutVersion"`
	}{Version: "1.0.0"})
	if err != nil {
		return err
	}
	index, err := idx.RawManifest()
	if err != nil {
		return err
	}
	manifest, err := img.RawManifest()
	if err != nil {
		return err
	}
	manifestDigest, err := img.Digest()
	if err != nil {
		return err
	}
	config, err := img.RawConfigFile()
	if err != nil {
		return err
	}
	configDigest, err := img.ConfigName()
	if err != nil {
		return err
	}
	if err := writeTarDir(tw, "blobs/"); err != nil {
		return err
	}
	if err := writeTarDir(tw, "blobs/sha256/"); err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		data []byte
	}{
		{"oci-layout", layoutFile},
		{"index.json", index},
		{blobPath(manifestDigest), manifest},
		{blobPath(configDigest), config},
	} {
		if err := writeTarFile(tw, f.name, int64(len(f.data)), bytes.NewReader(f.data)); err != nil {
			return err
		}
	}
	layers, err := img.Layers()
	if err != nil {
		return err
	}
	for _, l := range layers {
		if err := writeBlob(tw, l); err != nil {
			return err
		}
	}
	return tw.Close()
}

func writeBlob(tw *tar.Writer, l v1.Layer) error {
	digest, err := l.Digest()
	if err != nil {
		return err
	}
	size, err := l.Size()
	if err != nil {
		return err
	}
	rc, err := l.Compressed()
	if err != nil {
		return err
	}
	defer rc.Close()
	return writeTarFile(tw, blobPath(digest), size, rc)
}

func blobPath(h v1.Hash) string {
	return path.Join("blobs", h.Algorithm, h.Hex)
}

func writeTarDir(tw *tar.Writer, name string) error {
	return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: name, Mode: 0o755, Format: tar.FormatPAX})
}

func writeTarFile(tw *tar.Writer, name string, size int64, r io.Reader) error {
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644, Size: size, Format: tar.FormatPAX}); err != nil {
		return err
	}
	_, err := io.Copy(tw, r)
	return err
}
