package buildversion

import (
	"strings"
	"testing"
)

func TestUnstampedBuildReportsAParsableVersion(t *testing.T) {
	// Tests are built without the Makefile's -ldflags.
	v := Get()
	if strings.Contains(v.GitVersion, "$Format") || strings.Contains(v.GitCommit, "$Format") {
		t.Errorf("unstamped version still has component-base's placeholders: %#v", v)
	}
	if !strings.HasPrefix(v.GitVersion, "v") {
		t.Errorf("GitVersion %q does not start with v", v.GitVersion)
	}
}
