package buildversion

import (
	"runtime/debug"
	"strings"

	apimachineryversion "k8s.io/apimachinery/pkg/version"
	"k8s.io/component-base/version"
)

// unstampedVersion is what a binary reports as its version when it was not
// built by the Makefile or the Dockerfile (go run, go test, a plain go build).
const unstampedVersion = "v0.0.0-dev"

// Get returns the build's version information: k8s.io/component-base's
// version.Get, which the Makefile and the Dockerfile stamp with -ldflags. A
// binary built without them (go run, go test) would report component-base's
// placeholders ("v0.0.0-master+$Format:%H$"), which no client can parse; it
// reports the module version when it was installed with go install
// module@version, v0.0.0-dev otherwise, and the VCS revision Go recorded, if
// any.
func Get() apimachineryversion.Info {
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
