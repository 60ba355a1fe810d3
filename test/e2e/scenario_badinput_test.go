//go:build e2e

package e2e

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/graft-dev/graft/test/charts"
)

var _ = Describe("Scenario 7: bad input", func() {
	// Each binary the suite runs must refuse a bad config file at start with
	// a non-zero exit and a message naming every invalid field.
	var names []string
	for _, sc := range suiteComponents {
		if !slices.Contains(names, sc.chart) {
			names = append(names, sc.chart)
		}
	}
	for _, chart := range names {
		It("stops "+chart+" at start on an invalid config file, naming every invalid field", func(ctx SpecContext) {
			path := renderConfig(ctx, chart, "config.clientConnection.burst=-1", "config.logging.format=xml", "config.leaderElection.resourceLock=endpoints")
			code, out := runToExit(ctx, chart, path)
			Expect(code).NotTo(BeZero(), "output:\n%s", out)
			Expect(out).To(ContainSubstring("clientConnection.burst"))
			Expect(out).To(ContainSubstring("logging.format"))
			Expect(out).To(ContainSubstring("leaderElection.resourceLock"))
		}, SpecTimeout(time.Minute))

		It("stops "+chart+" at start on an unknown field, naming it", func(ctx SpecContext) {
			path := renderConfig(ctx, chart, "config.notAField=1")
			code, out := runToExit(ctx, chart, path)
			Expect(code).NotTo(BeZero(), "output:\n%s", out)
			Expect(out).To(ContainSubstring("notAField"))
		}, SpecTimeout(time.Minute))
	}
})

// renderConfig renders a chart's component config with extra values and
// writes it to a file.
func renderConfig(ctx context.Context, chart string, set ...string) string {
	GinkgoHelper()
	objs, err := charts.Template(ctx, chart, charts.TemplateOptions{Release: chart, Namespace: componentNamespace, Set: set})
	Expect(err).NotTo(HaveOccurred())
	for _, o := range objs {
		if o.GetKind() == "ConfigMap" {
			data, _, _ := unstructured.NestedString(o.Object, "data", "config.yaml")
			path := filepath.Join(GinkgoT().TempDir(), "config.yaml")
			Expect(os.WriteFile(path, []byte(data), 0o600)).To(Succeed())
			return path
		}
	}
	Fail("chart " + chart + " rendered no ConfigMap")
	return ""
}

// runToExit runs a binary with a config file and returns its exit code and output.
func runToExit(ctx context.Context, chart, configPath string) (int, string) {
	GinkgoHelper()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bins.path(chart), "--config", configPath).CombinedOutput()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), string(out)
	}
	Expect(err).NotTo(HaveOccurred(), "running %s", chart)
	return 0, string(out)
}
