package charts

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/graft-dev/graft/pkg/controlplane"

	"k8s.io/client-go/tools/clientcmd"
)

// InstallOptions are the inputs of a `helm upgrade --install`.
type InstallOptions struct {
	TemplateOptions
	// Kubeconfig is the cluster to install into.
	Kubeconfig string
	// Wait is how long Helm waits for the release's Deployments to be ready;
	// zero does not wait.
	Wait time.Duration
}

// Install installs or upgrades a release of chart with `helm upgrade
// --install`, creating its namespace when missing. Objects that exist
// without belonging to a release (a garden whose CRDs and admission policies
// test/framework installed) are taken over by the release.
func Install(ctx context.Context, chart string, opts InstallOptions) (string, error) {
	dir, err := Dir(chart)
	if err != nil {
		return "", err
	}
	if opts.Release == "" {
		opts.Release = chart
	}
	if opts.Namespace == "" {
		opts.Namespace = controlplane.ComponentNamespace
	}
	args := []string{"upgrade", "--install", opts.Release, dir, "--namespace", opts.Namespace,
		"--create-namespace", "--take-ownership", "--kubeconfig", opts.Kubeconfig}
	args = append(args, opts.valueArgs()...)
	if opts.Wait > 0 {
		args = append(args, "--wait", "--timeout", opts.Wait.String())
	}
	out, err := run(ctx, args...)
	return string(out), err
}

// ComponentCharts are the charts of graft's three daemons.
var ComponentCharts = []string{"graft-scheduler", "graft-descheduler", "graft-capacity-annotator"}

// Image is a container image the component charts run.
type Image struct {
	// Repository and Tag name it.
	Repository, Tag string
	// PullPolicy is Never for an image imported into the node's runtime
	// rather than pulled.
	PullPolicy string
}

// ParseImage splits a reference "repository:tag" into an Image with the
// given pull policy.
func ParseImage(ref, pullPolicy string) (Image, error) {
	i := strings.LastIndex(ref, ":")
	if i < 0 || strings.Contains(ref[i:], "/") {
		return Image{}, fmt.Errorf("image %q has no tag", ref)
	}
	return Image{Repository: ref[:i], Tag: ref[i+1:], PullPolicy: pullPolicy}, nil
}

// Values are the --set values that point a component chart at the image.
func (i Image) Values() []string {
	return []string{"image.repository=" + i.Repository, "image.tag=" + i.Tag, "image.pullPolicy=" + i.PullPolicy}
}

// GraftOptions say how InstallGraft installs graft.
type GraftOptions struct {
	Kubeconfig string
	Image      Image
	// Components are extra values per component chart.
	Components map[string]TemplateOptions
	// Wait is how long to wait for each component's Deployment.
	Wait time.Duration
}

// InstallGraft installs the four charts the way an operator does: graft-crds
// (with the seed assigners test/framework's gardens use, so that the suites'
// second scheduler may place shoots too, and the kubeconfig's identity as an
// operator, controlplane.AddOperator), then graft-scheduler,
// graft-descheduler and graft-capacity-annotator running the image, each
// waited for in turn.
func InstallGraft(ctx context.Context, o GraftOptions) error {
	assigners, err := controlplane.TestSeedAssigners()
	if err != nil {
		return err
	}
	tolerations, err := controlplane.ChartToleratedKeys()
	if err != nil {
		return err
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", o.Kubeconfig)
	if err != nil {
		return fmt.Errorf("reading %s: %w", o.Kubeconfig, err)
	}
	if err := controlplane.AddOperator(ctx, cfg, &assigners, &tolerations); err != nil {
		return err
	}
	crds := InstallOptions{Kubeconfig: o.Kubeconfig, Wait: o.Wait}
	crds.SetJSON, err = assignerValues(assigners)
	if err != nil {
		return err
	}
	if tolerations.ExemptUsers == nil {
		tolerations.ExemptUsers = []string{} // null would restore the chart's default
	}
	exempt, err := json.Marshal(tolerations.ExemptUsers)
	if err != nil {
		return err
	}
	crds.SetJSON = append(crds.SetJSON, "admissionPolicies.shootTenancy.tolerations.exemptUsers="+string(exempt))
	if out, err := Install(ctx, "graft-crds", crds); err != nil {
		return fmt.Errorf("installing graft-crds: %w\n%s", err, out)
	}
	for _, chart := range ComponentCharts {
		opts := InstallOptions{TemplateOptions: o.Components[chart], Kubeconfig: o.Kubeconfig, Wait: o.Wait}
		opts.Set = append(o.Image.Values(), opts.Set...)
		if out, err := Install(ctx, chart, opts); err != nil {
			return fmt.Errorf("installing %s: %w\n%s", chart, err, out)
		}
	}
	return nil
}

// assignerValues are the graft-crds values that list the seed assigners.
func assignerValues(a controlplane.SeedAssigners) ([]string, error) {
	// Empty lists rather than null, which would restore the chart's defaults.
	lists := map[string]any{"serviceAccounts": a.ServiceAccounts, "groups": a.Groups, "users": a.Users}
	if a.ServiceAccounts == nil {
		lists["serviceAccounts"] = []controlplane.ServiceAccountRef{}
	}
	if a.Groups == nil {
		lists["groups"] = []string{}
	}
	if a.Users == nil {
		lists["users"] = []string{}
	}
	var values []string
	for key, v := range lists {
		data, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		values = append(values, "admissionPolicies.seedAssignment."+key+"="+string(data))
	}
	sort.Strings(values)
	return values, nil
}
