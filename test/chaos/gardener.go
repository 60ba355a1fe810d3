package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/controlplane"
	"github.com/graft-dev/graft/pkg/controlplane/gardenerlandscape"
	"github.com/graft-dev/graft/pkg/garden"
	"github.com/graft-dev/graft/test/invariant"
)

// The Gardener mode (-api core.gardener.cloud): the daemons work on
// gardener-apiserver's core.gardener.cloud, every write passes Gardener's
// validation and admission, shoots are created and deleted as a tenant does
// (deletion confirmed), taints are written as graftctl writes them
// (spec.taints and the graft.dev/taints annotation), capacity changes as
// gardenlet reports it (status.allocatable), and a stand-in for gardenlet
// finishes every control-plane migration a few seconds after its binding.
// Evictions are migrations; the checker judges the in-flight limits and that
// no shoot is migrated off a seed twice for one cause.
const (
	gardenerProject      = "chaos"
	gardenerNamespace    = "garden-chaos"
	gardenerCloudProfile = "chaos"
	gardenerCredentials  = "chaos-credentials"
	gardenerDNSSecret    = "chaos-dns"
	// One internal and default domain and backup on every seed: Gardener
	// migrates control planes between them.
	gardenerInternalDomain = "internal.chaos.graft.example"
	gardenerDefaultDomain  = "shoots.chaos.graft.example"
	// migrationDelay is how long the gardenlet stand-in takes per migration.
	migrationDelay = 3 * time.Second
)

var gardenerRegions = []string{"eu-west-1", "eu-central-1"}

// Gardener mode's limits of graft-descheduler, set on its chart and judged
// by the checker: low enough that evacuations meet them.
const (
	chaosMaxMigrationsInFlight        = 4
	chaosMaxMigrationsInFlightPerSeed = 2
	chaosRepeatEvictionWindow         = 10 * time.Minute
)

// gardenerValues are the chart values of the Gardener mode, besides
// chartValues.
var gardenerValues = map[string][]string{
	"graft-scheduler":          {"config.api=core.gardener.cloud"},
	"graft-capacity-annotator": append([]string{"config.api=core.gardener.cloud"}, poolValues()...),
	"graft-descheduler": {"config.api=core.gardener.cloud",
		fmt.Sprintf("config.maxMigrationsInFlight=%d", chaosMaxMigrationsInFlight),
		fmt.Sprintf("config.maxMigrationsInFlightPerSeed=%d", chaosMaxMigrationsInFlightPerSeed),
		fmt.Sprintf("config.repeatEvictionWindow=%s", chaosRepeatEvictionWindow),
		// gardener-apiserver runs with live migration's feature gate.
		"config.liveMigration=Prefer"},
}

// chaosLiveGardenletVersions are the gardenlet versions the run declares as
// running GEP-39's live flow: none, as for a garden of Gardener v1.150.0,
// so every move written as live is timed and judged as classic.
var chaosLiveGardenletVersions []string

// gardenerGarden is what the Gardener mode runs besides the control plane.
type gardenerGarden struct {
	apiserver *controlplane.Gardener
	dynamic   garden.Dynamic
	client    garden.Client
	creator   gardenerlandscape.Creator
}

// startGardener starts etcd, kube-apiserver and gardener-apiserver, creates
// the landscape through Gardener's admission and starts the gardenlet
// stand-in until watchCtx ends.
func (r *run) startGardener(ctx, watchCtx context.Context, cpLog *os.File) error {
	r.logf("starting etcd, kube-apiserver and gardener-apiserver on loopback")
	apiserver, err := controlplane.PrepareGardener(controlplane.GardenerOptions{Dir: r.dir + "/gardener", Log: cpLog,
		FeatureGates: []string{"LiveControlPlaneMigration=true"}})
	if err != nil {
		return err
	}
	r.g = &gardenerGarden{apiserver: apiserver}
	r.cp, err = controlplane.StartControlPlane(ctx, controlplane.ControlPlaneOptions{Dir: r.dir + "/garden", Log: cpLog,
		ExtraAPIServerArgs: apiserver.APIServerArgs()})
	if err != nil {
		return err
	}
	if err := apiserver.Start(ctx, r.cp); err != nil {
		return err
	}
	if err := r.kubeAndNamespaces(ctx); err != nil {
		return err
	}
	g := r.g
	if g.dynamic, err = garden.NewDynamic(r.cp.RESTConfig); err != nil {
		return err
	}
	if g.client, err = garden.New(garden.Gardener, nil, g.dynamic); err != nil {
		return err
	}
	g.creator = gardenerlandscape.Creator{Dynamic: g.dynamic, Kube: r.kube}

	// Six seeds in two regions, little room each, as on graft's API.
	project := gardenerlandscape.ProjectSpec{Name: gardenerProject, Namespace: gardenerNamespace, CloudProfile: gardenerCloudProfile,
		Credentials: gardenerCredentials, DNSSecret: gardenerDNSSecret, Regions: gardenerRegions}
	for i := range 6 {
		region := gardenerRegions[i/3]
		name := fmt.Sprintf("%s-%c", region, 'a'+i%3)
		project.Seeds = append(project.Seeds, gardenerlandscape.MakeSeed(name, region, i).Backup(gardenerlandscape.ProviderType).
			InternalDomain(gardenerInternalDomain).DefaultDomains(gardenerDefaultDomain).Obj())
		r.seeds = append(r.seeds, name)
	}
	r.logf("creating the landscape through gardener-apiserver")
	if err := g.creator.Create(ctx, project); err != nil {
		return err
	}
	for _, name := range r.seeds {
		if err := g.creator.MarkReady(ctx, name, 10); err != nil {
			return err
		}
	}
	// The project allows the toleration of the maintenance taint.
	allow, _ := json.Marshal(map[string]any{"spec": map[string]any{"tolerations": map[string]any{"whitelist": []any{map[string]any{"key": tolKey}}}}})
	if _, err := g.dynamic.Resource(gardenerlandscape.Projects).Patch(ctx, gardenerProject, types.MergePatchType, allow, metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("allowing the toleration in project %s: %w", gardenerProject, err)
	}

	// The scaled pool, its first replica's seed registered.
	if err := r.createPool(ctx); err != nil {
		return fmt.Errorf("creating the pool's ManagedSeedSet: %w", err)
	}
	if err := r.registerPoolSeed(ctx, 0); err != nil {
		return err
	}
	r.poolReplicas = 1
	go r.poolStandIn(watchCtx)

	standIn := &gardenerlandscape.GardenletStandIn{Dynamic: g.dynamic, Delay: migrationDelay, ReportNew: true}
	if err := standIn.Start(watchCtx); err != nil {
		return err
	}
	sources, err := invariant.GardenerSources(g.dynamic, r.kube)
	if err != nil {
		return err
	}
	r.check = newChecker(sources, r.bound, r.logf, &migrationRules{
		total: chaosMaxMigrationsInFlight, perSeed: chaosMaxMigrationsInFlightPerSeed, window: chaosRepeatEvictionWindow})
	r.check.pool = newPoolJudge()
	go r.check.followPool(watchCtx, r)
	return nil
}

// createGardenerShoot creates a shoot as a tenant does, through Gardener's
// admission: tolerating the maintenance taint for ever, for secs seconds
// (graft.dev/toleration-seconds), or not at all.
func (r *run) createGardenerShoot(ctx context.Context, name, region string, tolerate int, secs int64, window *corev1alpha1.MaintenanceTimeWindow, ha bool) error {
	shoot := gardenerlandscape.MakeShoot(gardenerNamespace, name, gardenerCloudProfile, region).With(func(s *corev1alpha1.Shoot) {
		s.Spec.Maintenance = &corev1alpha1.Maintenance{TimeWindow: window}
	})
	if ha {
		shoot.FailureTolerance(corev1alpha1.FailureToleranceTypeNode)
	}
	obj, err := gardenerlandscape.Shoot(shoot.Obj(), gardenerCredentials)
	if err != nil {
		return err
	}
	if tolerate <= 1 {
		if err := unstructured.SetNestedSlice(obj.Object, []any{map[string]any{"key": tolKey}}, "spec", "tolerations"); err != nil {
			return err
		}
	}
	if tolerate == 1 {
		obj.SetAnnotations(map[string]string{corev1alpha1.AnnotationTolerationSeconds: fmt.Sprintf(`[{"key":%q,"tolerationSeconds":%d}]`, tolKey, secs)})
	}
	client := r.g.dynamic.Resource(gardenerlandscape.Shoots).Namespace(gardenerNamespace)
	return gardenerlandscape.Admitted(ctx, func(ctx context.Context) error {
		_, err := client.Create(ctx, obj, metav1.CreateOptions{})
		return err
	}, nil)
}

// deleteGardenerShoot deletes the shoot as a tenant does (deletion
// confirmed).
func (r *run) deleteGardenerShoot(ctx context.Context, name string) error {
	return r.g.creator.DeleteShoot(ctx, gardenerNamespace, name)
}

// updateGardenerTaints changes a Gardener seed's taints as graftctl writes
// them: spec.taints and the graft.dev/taints annotation, preconditioned on
// the version read.
func (r *run) updateGardenerTaints(ctx context.Context, name string, change func([]corev1alpha1.SeedTaint) ([]corev1alpha1.SeedTaint, bool)) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		c, cancel := r.reqCtx(ctx)
		defer cancel()
		seed, err := r.g.client.GetSeed(c, name)
		if err != nil {
			return err
		}
		taints, changed := change(seed.Spec.Taints)
		if !changed {
			return errNoChange
		}
		patch, err := garden.Gardener.TaintsPatch(seed, taints)
		if err != nil {
			return err
		}
		_, err = r.g.client.PatchSeed(c, name, patch, metav1.PatchOptions{})
		return err
	})
}

// setGardenerCapacity reports the seed's room as gardenlet does
// (status.allocatable.shoots).
func (r *run) setGardenerCapacity(ctx context.Context, name string, shoots int) error {
	c, cancel := r.reqCtx(ctx)
	defer cancel()
	return r.g.creator.MarkReady(c, name, shoots)
}
