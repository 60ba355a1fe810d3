package charts

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/graft-dev/graft/pkg/controlplane"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

var (
	helmOnce sync.Once
	helmPath string
	helmErr  error
)

// Helm returns the path of the helm binary: $GRAFT_HELM when set, otherwise
// the one hack/install-deps.sh installs (it builds Helm from the Go module
// proxy the first time, which takes minutes).
func Helm() (string, error) {
	helmOnce.Do(func() {
		if bin := os.Getenv("GRAFT_HELM"); bin != "" {
			helmPath = bin
			return
		}
		root, err := controlplane.RepoRoot()
		if err != nil {
			helmErr = err
			return
		}
		cmd := exec.Command("bash", filepath.Join(root, "hack", "install-deps.sh"), "helm-path")
		cmd.Stderr = os.Stderr
		out, err := cmd.Output()
		if err != nil {
			helmErr = fmt.Errorf("installing helm with hack/install-deps.sh: %w", err)
			return
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		helmPath = lines[len(lines)-1]
	})
	return helmPath, helmErr
}

// Dir returns the directory of the chart with the given name (graft-scheduler, ...).
func Dir(chart string) (string, error) {
	root, err := controlplane.RepoRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "charts", chart), nil
}

// run runs helm with its caches and configuration in a throw-away directory,
// so that tests neither read nor change the user's Helm setup.
func run(ctx context.Context, args ...string) ([]byte, error) {
	bin, err := Helm()
	if err != nil {
		return nil, err
	}
	home, err := os.MkdirTemp("", "graft-helm-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(home)
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(),
		"HELM_CACHE_HOME="+filepath.Join(home, "cache"),
		"HELM_CONFIG_HOME="+filepath.Join(home, "config"),
		"HELM_DATA_HOME="+filepath.Join(home, "data"),
	)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.Bytes(), fmt.Errorf("helm %s: %w\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.Bytes(), nil
}

// Lint runs `helm lint --strict` on a chart with the given values files and
// returns its output.
func Lint(ctx context.Context, chart string, valuesFiles ...string) (string, error) {
	dir, err := Dir(chart)
	if err != nil {
		return "", err
	}
	args := []string{"lint", "--strict", dir}
	for _, f := range valuesFiles {
		args = append(args, "--values", f)
	}
	out, err := run(ctx, args...)
	return string(out), err
}

// TemplateOptions are the inputs of a `helm template`.
type TemplateOptions struct {
	// Release is the release name; default "graft".
	Release string
	// Namespace is the release namespace; default "default".
	Namespace string
	// ValuesFiles are passed with --values, in order.
	ValuesFiles []string
	// Set are passed with --set, in order (key=value).
	Set []string
	// SetJSON are passed with --set-json, in order (key=JSON), for lists.
	SetJSON []string
	// IncludeCRDs renders the chart's crds/ too.
	IncludeCRDs bool
}

// valueArgs are helm's flags for the values: --values, --set and --set-json,
// in that order.
func (opts TemplateOptions) valueArgs() []string {
	var args []string
	for _, f := range opts.ValuesFiles {
		args = append(args, "--values", f)
	}
	for _, s := range opts.Set {
		args = append(args, "--set", s)
	}
	for _, s := range opts.SetJSON {
		args = append(args, "--set-json", s)
	}
	return args
}

// Template renders a chart with `helm template` and returns its objects.
func Template(ctx context.Context, chart string, opts TemplateOptions) ([]*unstructured.Unstructured, error) {
	out, err := TemplateRaw(ctx, chart, opts)
	if err != nil {
		return nil, err
	}
	return ParseObjects(out)
}

// TemplateRaw renders a chart with `helm template` and returns the YAML stream.
func TemplateRaw(ctx context.Context, chart string, opts TemplateOptions) ([]byte, error) {
	dir, err := Dir(chart)
	if err != nil {
		return nil, err
	}
	if opts.Release == "" {
		opts.Release = "graft"
	}
	if opts.Namespace == "" {
		opts.Namespace = "default"
	}
	args := append([]string{"template", opts.Release, dir, "--namespace", opts.Namespace}, opts.valueArgs()...)
	if opts.IncludeCRDs {
		args = append(args, "--include-crds")
	}
	return run(ctx, args...)
}

// Notes renders a chart's NOTES.txt as `helm install --dry-run` does, against
// the cluster of kubeconfig (Helm asks it for its version only; nothing is
// installed), and returns the notes.
func Notes(ctx context.Context, chart, kubeconfig string, opts TemplateOptions) (string, error) {
	dir, err := Dir(chart)
	if err != nil {
		return "", err
	}
	if opts.Release == "" {
		opts.Release = "graft"
	}
	if opts.Namespace == "" {
		opts.Namespace = "default"
	}
	args := append([]string{"install", opts.Release, dir, "--namespace", opts.Namespace, "--kubeconfig", kubeconfig, "--dry-run"}, opts.valueArgs()...)
	out, err := run(ctx, args...)
	if err != nil {
		return "", err
	}
	_, notes, ok := strings.Cut(string(out), "\nNOTES:\n")
	if !ok {
		return "", fmt.Errorf("helm install --dry-run of %s printed no NOTES:\n%s", chart, out)
	}
	return notes, nil
}

// ParseObjects splits a multi-document YAML stream into objects, skipping
// empty documents.
func ParseObjects(data []byte) ([]*unstructured.Unstructured, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var objs []*unstructured.Unstructured
	for {
		var m map[string]any
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			return objs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("parsing rendered manifests: %w", err)
		}
		if len(m) == 0 {
			continue
		}
		objs = append(objs, &unstructured.Unstructured{Object: m})
	}
}
