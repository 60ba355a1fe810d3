package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/controlplane/gardenerlandscape"
	"github.com/graft-dev/graft/pkg/coretest"
)

// The Gardener landscape of make demo-gardener: one project, a CloudProfile
// with four regions, four ready seeds in three of them, and shoots.
const (
	gardenerProject      = "dev"
	gardenerNamespace    = "garden-dev"
	gardenerCloudProfile = "local"
	gardenerCredentials  = "dev-credentials"
	gardenerDNSSecret    = "seed-dns"
	// graftSchedulerName is the schedulerName of hack/demo/config/graft-scheduler-gardener.yaml.
	graftSchedulerName = "graft-scheduler"
	// The seeds' domains: one for all, so that control planes may migrate.
	gardenerInternalDomain = "internal.demo.graft.example"
	gardenerDefaultDomain  = "shoots.demo.graft.example"
)

var gardenerRegions = []string{"eu-west-1", "eu-central-1", "us-east-1", "ap-south-1"}

// gardenerSeeds: no seed in ap-south-1.
var gardenerSeeds = []struct {
	name, region string
	allocatable  int
}{
	{"eu-west-a", "eu-west-1", 6},
	{"eu-west-b", "eu-west-1", 6},
	{"eu-central", "eu-central-1", 2},
	{"us-east", "us-east-1", 2},
}

// gardenerShoots: every shoot but legacy names graft-scheduler; legacy is left
// to Gardener's own scheduler (default-scheduler), which does not run here.
// mumbai's region has no seed.
var gardenerShoots = []struct {
	name, region, schedulerName string
}{
	{"web", "eu-west-1", graftSchedulerName},
	{"shop", "eu-west-1", graftSchedulerName},
	{"api", "eu-central-1", graftSchedulerName},
	{"batch", "us-east-1", graftSchedulerName},
	{"mumbai", "ap-south-1", graftSchedulerName},
	{"legacy", "eu-west-1", ""},
}

// gardenerLandscape creates the landscape through gardener-apiserver (each
// object through Gardener's validation and admission) and gives the seeds the
// status a ready gardenlet would report. Objects that exist already are kept.
func gardenerLandscape(ctx context.Context, cfg *rest.Config) error {
	c, err := creator(cfg)
	if err != nil {
		return err
	}
	project := gardenerlandscape.ProjectSpec{Name: gardenerProject, Namespace: gardenerNamespace, CloudProfile: gardenerCloudProfile,
		Credentials: gardenerCredentials, DNSSecret: gardenerDNSSecret, Regions: gardenerRegions}
	for i, s := range gardenerSeeds {
		// Backup and one internal and default domain for all: Gardener then
		// migrates control planes between them.
		project.Seeds = append(project.Seeds, gardenerlandscape.MakeSeed(s.name, s.region, i).Backup(gardenerlandscape.ProviderType).
			InternalDomain(gardenerInternalDomain).DefaultDomains(gardenerDefaultDomain).Obj())
	}
	if err := c.Create(ctx, project); err != nil {
		return err
	}
	for _, s := range gardenerSeeds {
		if err := c.MarkReady(ctx, s.name, s.allocatable); err != nil {
			return err
		}
		fmt.Printf("seed/%s ready in %s with room for %d shoots (the status gardenlet would report)\n", s.name, s.region, s.allocatable)
	}
	for _, s := range gardenerShoots {
		if err := gardenerShoot(ctx, c, s.name, s.region, s.schedulerName); err != nil {
			return err
		}
	}
	return nil
}

// creator creates the demo's objects and says which it created and which
// existed already.
func creator(cfg *rest.Config) (gardenerlandscape.Creator, error) {
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return gardenerlandscape.Creator{}, err
	}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return gardenerlandscape.Creator{}, err
	}
	return gardenerlandscape.Creator{Dynamic: dyn, Kube: kube, Created: func(obj *unstructured.Unstructured, existed bool) {
		what := strings.ToLower(obj.GetKind()) + "/" + obj.GetName()
		if obj.GetNamespace() != "" {
			what = strings.ToLower(obj.GetKind()) + "/" + obj.GetNamespace() + "/" + obj.GetName()
		}
		fmt.Printf("%s %s\n", what, map[bool]string{false: "created", true: "exists"}[existed])
	}}, nil
}

// gardenerShoot creates a shoot of the demo's project without a seed.
func gardenerShoot(ctx context.Context, c gardenerlandscape.Creator, name, region, schedulerName string, edits ...func(*coretest.ShootWrapper)) error {
	shoot := gardenerlandscape.MakeShoot(gardenerNamespace, name, gardenerCloudProfile, region)
	if schedulerName != "" {
		shoot.SchedulerName(schedulerName)
	}
	for _, edit := range edits {
		edit(shoot)
	}
	obj, err := gardenerlandscape.Shoot(shoot.Obj(), gardenerCredentials)
	if err != nil {
		return err
	}
	_, err = c.Apply(ctx, gardenerlandscape.Shoots, gardenerNamespace, obj)
	return err
}

// shootConditions are what waitShoot can wait for.
var shootConditions = map[string]func(*unstructured.Unstructured) (bool, string){
	// bound: spec.seedName is set.
	"bound": func(s *unstructured.Unstructured) (bool, string) {
		seed, found, _ := unstructured.NestedString(s.Object, "spec", "seedName")
		return found, "bound to seed/" + seed
	},
	// running: its control plane runs on the seed it is bound to
	// (status.seedName, which the gardenlet stand-in reports).
	"running": func(s *unstructured.Unstructured) (bool, string) {
		spec, _, _ := unstructured.NestedString(s.Object, "spec", "seedName")
		status, _, _ := unstructured.NestedString(s.Object, "status", "seedName")
		return spec != "" && status == spec, "running on seed/" + status
	},
	// pending: status.lastOperation is Create/Pending, graft-scheduler's
	// (and Gardener's) word for a shoot that waits for a seed.
	"pending": func(s *unstructured.Unstructured) (bool, string) {
		typ, _, _ := unstructured.NestedString(s.Object, "status", "lastOperation", "type")
		state, _, _ := unstructured.NestedString(s.Object, "status", "lastOperation", "state")
		description, _, _ := unstructured.NestedString(s.Object, "status", "lastOperation", "description")
		return typ == "Create" && state == "Pending", "lastOperation Create/Pending: " + description
	},
}

// waitShoot waits until the shoot meets the condition and prints what it
// saw; with a seed, a shoot bound to another seed is an error.
func waitShoot(ctx context.Context, cfg *rest.Config, name, condition, seed string) error {
	cond, ok := shootConditions[condition]
	if !ok {
		return fmt.Errorf("unknown condition %q (bound, running or pending)", condition)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	client := dyn.Resource(gardenerlandscape.Shoots).Namespace(gardenerNamespace)
	if seed != "" && condition != "bound" {
		return fmt.Errorf("a seed goes with bound only")
	}
	var said string
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		s, err := client.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		var done bool
		done, said = cond(s)
		return done, nil
	})
	if err != nil {
		return fmt.Errorf("shoot %s/%s is not %s after two minutes", gardenerNamespace, name, condition)
	}
	fmt.Printf("shoot/%s/%s %s\n", gardenerNamespace, name, said)
	if seed != "" && said != "bound to seed/"+seed {
		return fmt.Errorf("shoot %s/%s should be bound to seed/%s", gardenerNamespace, name, seed)
	}
	return nil
}

// waitEvent waits for an Event with the reason about the shoot and prints it.
func waitEvent(ctx context.Context, cfg *rest.Config, name, reason string) error {
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	selector := fields.Set{"involvedObject.name": name, "reason": reason}.AsSelector().String()
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		list, err := kube.CoreV1().Events(gardenerNamespace).List(ctx, metav1.ListOptions{FieldSelector: selector})
		if err != nil || len(list.Items) == 0 {
			return false, nil
		}
		e := list.Items[0]
		fmt.Printf("Event %s %s from %s about %s %s/%s: %s\n", e.Type, e.Reason, e.Source.Component,
			e.InvolvedObject.APIVersion+" "+e.InvolvedObject.Kind, e.Namespace, e.InvolvedObject.Name, e.Message)
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("no Event %s about shoot %s/%s after two minutes", reason, gardenerNamespace, name)
	}
	return nil
}

// serverTables are the resources printTable knows.
// columns, if set, are the columns shown, from the wide table.
var serverTables = map[string]struct {
	gvr        schema.GroupVersionResource
	namespaced bool
	columns    []string
}{
	// Gardener's wide columns without the health conditions gardenlet
	// reports (none here): its default table has no SEED.
	"shoots": {gardenerlandscape.Shoots, true, []string{"NAME", "CLOUDPROFILE", "PROVIDER", "REGION", "SEED", "K8S VERSION", "LAST OPERATION", "STATUS", "AGE"}},
	"seeds":  {gardenerlandscape.Seeds, false, nil},
}

// printTable prints the resource as the API server's table shows it, as
// kubectl get does: for Gardener's resources, gardener-apiserver's columns.
func printTable(ctx context.Context, cfg *rest.Config, resource string) error {
	r, ok := serverTables[resource]
	if !ok {
		return fmt.Errorf("unknown resource %q", resource)
	}
	cfg = rest.CopyConfig(cfg)
	cfg.GroupVersion = &schema.GroupVersion{Group: r.gvr.Group, Version: r.gvr.Version}
	cfg.APIPath = "/apis"
	cfg.NegotiatedSerializer = scheme.Codecs.WithoutConversion()
	client, err := rest.RESTClientFor(cfg)
	if err != nil {
		return err
	}
	body, err := client.Get().Resource(r.gvr.Resource).
		SetHeader("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io").DoRaw(ctx)
	if err != nil {
		return err
	}
	table := &metav1.Table{}
	if err := json.Unmarshal(body, table); err != nil {
		return fmt.Errorf("decoding the table of %s: %w", resource, err)
	}
	if r.columns != nil {
		keepColumns(table, r.columns)
	}
	// The printer reads each row's namespace from its object's metadata.
	for i := range table.Rows {
		if raw := table.Rows[i].Object.Raw; raw != nil {
			u := &unstructured.Unstructured{}
			if err := u.UnmarshalJSON(raw); err != nil {
				return err
			}
			table.Rows[i].Object.Object = u
		}
	}
	sort.SliceStable(table.Rows, func(i, j int) bool { return rowKey(table.Rows[i]) < rowKey(table.Rows[j]) })
	return printers.NewTablePrinter(printers.PrintOptions{WithNamespace: r.namespaced}).PrintObj(table, os.Stdout)
}

// keepColumns drops the table's columns not named, and shows the others
// without -o wide.
func keepColumns(table *metav1.Table, names []string) {
	want := map[string]bool{}
	for _, n := range names {
		want[strings.ToUpper(n)] = true
	}
	var keep []int
	var defs []metav1.TableColumnDefinition
	for i, c := range table.ColumnDefinitions {
		if want[strings.ToUpper(c.Name)] {
			c.Priority = 0
			keep = append(keep, i)
			defs = append(defs, c)
		}
	}
	table.ColumnDefinitions = defs
	for r := range table.Rows {
		cells := make([]any, 0, len(keep))
		for _, i := range keep {
			if i < len(table.Rows[r].Cells) {
				cells = append(cells, table.Rows[r].Cells[i])
			}
		}
		table.Rows[r].Cells = cells
	}
}

func rowKey(row metav1.TableRow) string {
	if u, ok := row.Object.Object.(*unstructured.Unstructured); ok {
		return u.GetNamespace() + "/" + u.GetName()
	}
	return ""
}

// gardenerShootFor creates a shoot for graft-scheduler in the landscape.
func gardenerShootFor(ctx context.Context, cfg *rest.Config, name, region string, edits ...func(*coretest.ShootWrapper)) error {
	c, err := creator(cfg)
	if err != nil {
		return err
	}
	return gardenerShoot(ctx, c, name, region, graftSchedulerName, edits...)
}

// gardenlet runs a stand-in for gardenlet until ctx ends: a few seconds after
// a shoot is bound to a seed, or moved to another, it reports the control
// plane running there (status.seedName), as gardenlet does.
func gardenlet(ctx context.Context, cfg *rest.Config) error {
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	standIn := &gardenerlandscape.GardenletStandIn{Dynamic: dyn, Delay: 4 * time.Second, ReportNew: true}
	if err := standIn.Start(ctx); err != nil {
		return err
	}
	fmt.Println("gardenlet stand-in running")
	<-ctx.Done()
	return nil
}

// watchMigrations prints the control-plane migrations off seed as they start
// and finish, until no shoot of the landscape is bound to or runs on it.
func watchMigrations(ctx context.Context, cfg *rest.Config, seed string) error {
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	client := dyn.Resource(gardenerlandscape.Shoots).Namespace(gardenerNamespace)
	said := map[string]string{}
	moving, done := map[string]bool{}, 0
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 3*time.Minute, true, func(ctx context.Context) (bool, error) {
		list, err := client.List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		left := 0
		for _, s := range list.Items {
			spec, _, _ := unstructured.NestedString(s.Object, "spec", "seedName")
			status, _, _ := unstructured.NestedString(s.Object, "status", "seedName")
			var line string
			switch {
			case spec == seed || status == seed && spec == "":
				left++
				line = "on seed/" + seed
			case status == seed:
				left++
				moving[s.GetName()] = true
				line = fmt.Sprintf("migrating seed/%s -> seed/%s", seed, spec)
			case moving[s.GetName()] && status == spec:
				delete(moving, s.GetName())
				done++
				line = fmt.Sprintf("migrated to seed/%s", spec)
			default:
				continue
			}
			if said[s.GetName()] != line {
				said[s.GetName()] = line
				fmt.Printf("%s shoot/%s/%s %s\n", time.Now().Format("15:04:05"), gardenerNamespace, s.GetName(), line)
			}
		}
		return left == 0, nil
	})
	if err != nil {
		return fmt.Errorf("seed %s still hosts control planes after three minutes", seed)
	}
	fmt.Printf("seed/%s evacuated: %d control plane(s) migrated\n", seed, done)
	return nil
}

// liveMigrations prints, for each shoot of the landscape, its seed and how
// its control plane last moved, as graft-descheduler's binding recorded it
// (migration.gardener.cloud/live-migrate).
func liveMigrations(ctx context.Context, cfg *rest.Config) error {
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	list, err := dyn.Resource(gardenerlandscape.Shoots).Namespace(gardenerNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	w := tabwriter.NewWriter(os.Stdout, 0, 8, 2, ' ', 0)
	fmt.Fprintln(w, "SHOOT\tSEED\tLAST MOVE")
	for _, s := range list.Items {
		seed, _, _ := unstructured.NestedString(s.Object, "spec", "seedName")
		how := "-"
		switch s.GetAnnotations()[corev1alpha1.AnnotationLiveMigrate] {
		case "true":
			how = "live"
		case "false":
			how = "classic"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\n", s.GetName(), seed, how)
	}
	return w.Flush()
}
