package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// The user the graft image runs as, the same as the Dockerfile's base image
// (distroless "nonroot") and the charts' podSecurityContext.
const (
	nonrootID   = 65532
	nonrootHome = "/home/nonroot"
	// The binary the Dockerfile's ENTRYPOINT names; the charts set their
	// own command.
	graftEntrypoint = "graftctl"
	// The pause image's user: the one Kubernetes' own pause image uses, so
	// that a sandbox runs as nobody in particular unless the pod says
	// otherwise.
	pauseID = 65535
)

// The files a distroless base gives the Dockerfile's image besides the
// binaries, written out because this image has no base: a name and a home
// for the nonroot user (HOME, ~/.kube for graftctl), the resolver order
// (without nsswitch.conf Go asks DNS before /etc/hosts), and a /tmp a program
// can write to when no volume is mounted there. The charts mount
// their own /tmp and /etc/graft over a read-only root, so nothing else needs
// to be writable.
const (
	passwdFile = "root:x:0:0:root:/root:/sbin/nologin\n" +
		"nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n" +
		"nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n"
	groupFile = "root:x:0:\n" +
		"nobody:x:65534:\n" +
		"nonroot:x:65532:\n"
	nsswitchFile = "hosts: files dns\n"
	defaultPath  = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
	caBundlePath = "etc/ssl/certs/ca-certificates.crt"
)

func dir(p string, mode int64) entry { return entry{Path: p, Dir: true, Mode: mode} }

func rootFile(p string, mode int64, data string) entry {
	return entry{Path: p, Mode: mode, Data: []byte(data)}
}

// graftSpec is the graft image: binaries (host paths, named as the image
// should name them) in /usr/local/bin, run as 65532:65532 with graftctl as the
// entrypoint, like the Dockerfile's image. caBundle is a host file installed
// as the system's CA certificates ("" for none).
func graftSpec(arch string, created time.Time, binaries []string, caBundle string) (spec, error) {
	entries := []entry{
		dir("etc", 0o755),
		rootFile("etc/group", 0o644, groupFile),
		rootFile("etc/nsswitch.conf", 0o644, nsswitchFile),
		rootFile("etc/passwd", 0o644, passwdFile),
	}
	env := []string{defaultPath}
	if caBundle != "" {
		entries = append(entries,
			dir("etc/ssl", 0o755),
			dir("etc/ssl/certs", 0o755),
			entry{Path: caBundlePath, Mode: 0o644, Source: caBundle},
		)
		env = append(env, "SSL_CERT_FILE=/"+caBundlePath)
	}
	entries = append(entries,
		dir("home", 0o755),
		entry{Path: "home/nonroot", Dir: true, Mode: 0o700, UID: nonrootID, GID: nonrootID},
		// Sticky and world-writable, as /tmp is everywhere.
		dir("tmp", 0o1777),
		dir("usr", 0o755),
		dir("usr/local", 0o755),
		dir("usr/local/bin", 0o755),
	)
	hasEntrypoint := false
	for _, b := range binaries {
		base := filepath.Base(b)
		hasEntrypoint = hasEntrypoint || base == graftEntrypoint
		entries = append(entries, entry{Path: "usr/local/bin/" + base, Mode: 0o755, Source: b})
	}
	if !hasEntrypoint {
		return spec{}, fmt.Errorf("the binaries %v have no %s, the image's entrypoint", binaries, graftEntrypoint)
	}
	return spec{
		Arch:    arch,
		Created: created,
		Config: v1.Config{
			User:       fmt.Sprintf("%d:%d", nonrootID, nonrootID),
			Entrypoint: []string{"/usr/local/bin/" + graftEntrypoint},
			WorkingDir: nonrootHome,
			Env:        env,
		},
		Entries:   entries,
		CreatedBy: "hack/image graft: graft binaries in /usr/local/bin",
	}, nil
}

// pauseSpec is the pod sandbox image: the pause binary at /pause and nothing
// else; it needs no files, users or certificates.
func pauseSpec(arch string, created time.Time, binary string) spec {
	return spec{
		Arch:    arch,
		Created: created,
		Config: v1.Config{
			User:       fmt.Sprintf("%d:%d", pauseID, pauseID),
			Entrypoint: []string{"/pause"},
		},
		Entries:   []entry{{Path: "pause", Mode: 0o755, Source: binary}},
		CreatedBy: "hack/image pause: the pod sandbox process",
	}
}

var notInTag = regexp.MustCompile(`[^A-Za-z0-9_.-]`)

// defaultRef is the reference an image is imported as when --tag is not
// given: localhost/graft/<image>:<version>. "localhost" is a registry name
// nobody pulls from, so the name can never be mistaken for the published
// image, and containerd and the kubelet use it as written. A version
// from `git describe` may hold characters a tag may not ('+'); they become
// '-'.
func defaultRef(image, version string) string {
	tag := notInTag.ReplaceAllString(version, "-")
	if tag == "" || tag[0] == '.' || tag[0] == '-' {
		tag = "v" + tag
	}
	if len(tag) > 128 {
		tag = tag[:128]
	}
	return "localhost/graft/" + image + ":" + tag
}
