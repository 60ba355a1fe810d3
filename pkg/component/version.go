package component

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"
	"k8s.io/component-base/version/verflag"

	"github.com/graft-dev/graft/pkg/component/buildversion"
)

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
		fmt.Fprintf(w, "%#v\n", buildversion.Get())
		return true
	case string(verflag.VersionTrue):
		fmt.Fprintf(w, "%s %s\n", name, buildversion.Get())
		return true
	}
	return false
}
