package command

import (
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/spf13/pflag"
	apimachineryversion "k8s.io/apimachinery/pkg/version"
	"k8s.io/component-base/version"
	"k8s.io/component-base/version/verflag"
)

// unstampedVersion is what a binary reports as its version when it was not
// built by the Makefile or the Dockerfile (go run, go test, a plain go build).
const unstampedVersion = "v0.0.0-dev"

// Version returns the build's version information: k8s.io/component-base's
// version.Get, which the Makefile and the Dockerfile stamp with -ldflags. A
// binary built without them (go run, go test) would report component-base's
// placeholders ("v0.0.0-master+$Format:%H$"), which no client can parse; it
// reports the module version when it was installed with go install
// module@version, v0.0.0-dev otherwise, and the VCS revision Go recorded, if
// any.
func Version() apimachineryversion.Info {
	info := version.Get()
	if !strings.Contains(info.GitVersion, "$Format") && !strings.Contains(info.GitCommit, "$Format") {
		return info
	}
	gitVersion, commit, treeState := unstampedVersion, "", ""
	if build, ok := debug.ReadBuildInfo(); ok {
		if v := build.Main.Version; strings.HasPrefix(v, "v") {
			gitVersion = v
		}
		for _, s := range build.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.modified":
				treeState = map[string]string{"true": "dirty", "false": "clean"}[s.Value]
			}
		}
	}
	if strings.Contains(info.GitVersion, "$Format") {
		info.GitVersion = gitVersion
	}
	if strings.Contains(info.GitCommit, "$Format") {
		info.GitCommit = commit
		if info.GitTreeState == "" {
			info.GitTreeState = treeState
		}
	}
	return info
}

// AddVersionFlag registers component-base's --version flag (verflag) on fs.
func AddVersionFlag(fs *pflag.FlagSet) {
	verflag.AddFlags(fs)
}

// PrintVersionIfRequested prints the version when --version (name and
// version) or --version=raw (every field) was given on fs, and reports whether
// it did, so that the caller stops there. It is verflag's
// PrintAndExitIfRequested with the binary's name instead of "Kubernetes" and a
// return instead of os.Exit, so that deferred work still runs.
// --version=vX.Y.Z is left to verflag: it sets the reported version and the
// command goes on.
func PrintVersionIfRequested(w io.Writer, name string, fs *pflag.FlagSet) bool {
	f := fs.Lookup("version")
	if f == nil {
		return false
	}
	switch f.Value.String() {
	case string(verflag.VersionRaw):
		fmt.Fprintf(w, "%#v\n", Version())
		return true
	case string(verflag.VersionTrue):
		fmt.Fprintf(w, "%s %s\n", name, Version())
		return true
	}
	return false
}
