package livelandscape

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/pflag"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/kubernetes"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"

	"github.com/graft-dev/graft/pkg/algorithm"
	"github.com/graft-dev/graft/pkg/garden"
)

// Landscape is a snapshot of the garden taken at one moment.
type Landscape struct {
	Snapshot *algorithm.Snapshot
	// Seeds and Shoots are in the order the API server listed them.
	Seeds         []*corev1alpha1.Seed
	Shoots        []*corev1alpha1.Shoot
	CloudProfiles map[string]*corev1alpha1.CloudProfile
	// NamespacedCloudProfiles are by namespace/name.
	NamespacedCloudProfiles map[string]*corev1alpha1.NamespacedCloudProfile
	RegionConfigs           []*corev1.ConfigMap
	// Config is the strategy and scoring the scheduler is assumed to use.
	Config algorithm.Config
	// Projects is the Project of each namespace one names (nil on graft's
	// API, or without permission to list Projects: decisions then take the
	// name Gardener gives a project's namespace).
	Projects map[string]string
	// Warnings say what could not be read and what decisions do without it.
	Warnings []string
	// SeedConfigs are the Gardener seeds' configuration objects by seed name
	// (nil on graft's API, or without permission to read them).
	SeedConfigs map[string]*garden.SeedConfig

	// migrates is the mover's (garden.Mover): a move is a migration.
	migrates bool
	inputs   *algorithm.InputsBuilder
	// nsProfilesErr is why the NamespacedCloudProfiles could not be listed.
	nsProfilesErr error
}

// RegionConfigNamespaceFlag names the flag of the commands that ask the
// algorithm: the namespace region ConfigMaps are read from, which must be the
// scheduler's regionConfigNamespace for graftctl to decide as it does.
const RegionConfigNamespaceFlag = "region-config-namespace"

// AddRegionConfigNamespaceFlag adds --region-config-namespace, default garden.
func AddRegionConfigNamespaceFlag(flags *pflag.FlagSet, p *string) {
	flags.StringVar(p, RegionConfigNamespaceFlag, corev1alpha1.GardenNamespace,
		"Namespace region ConfigMaps are read from; must be graft-scheduler's regionConfigNamespace. ConfigMaps in other namespaces are ignored, as the scheduler ignores them.")
}

// ValidateRegionConfigNamespace checks the flag's value.
func ValidateRegionConfigNamespace(ns string) error {
	if msgs := validation.IsDNS1123Label(ns); len(msgs) > 0 {
		return fmt.Errorf("invalid --%s %q: %s", RegionConfigNamespaceFlag, ns, strings.Join(msgs, "; "))
	}
	return nil
}

// Load reads the garden, with the region ConfigMaps of regionConfigNamespace
// only (garden when empty). Region ConfigMaps are optional: without permission
// to list ConfigMaps in that namespace the landscape is still usable, with a
// warning.
func Load(ctx context.Context, client garden.Client, kube kubernetes.Interface, config algorithm.Config, regionConfigNamespace string) (*Landscape, error) {
	if regionConfigNamespace == "" {
		regionConfigNamespace = corev1alpha1.GardenNamespace
	}
	l := &Landscape{Snapshot: algorithm.NewSnapshot(), CloudProfiles: map[string]*corev1alpha1.CloudProfile{},
		NamespacedCloudProfiles: map[string]*corev1alpha1.NamespacedCloudProfile{}, Config: config, migrates: client.Mover().Migrates()}
	l.inputs = &algorithm.InputsBuilder{Landscape: l, Config: config}

	seeds, err := client.ListSeeds(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	for i := range seeds {
		l.Snapshot.AddSeed(&seeds[i])
		l.Seeds = append(l.Seeds, &seeds[i])
	}
	shoots, err := client.ListShoots(ctx, metav1.NamespaceAll, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	for i := range shoots {
		l.Snapshot.AddShoot(&shoots[i])
		l.Shoots = append(l.Shoots, &shoots[i])
	}
	// Only marks taints that will not last; without it nothing is marked
	// (graft's API holds none, and answers without a request).
	l.SeedConfigs, _ = client.ListSeedConfigs(ctx)
	profiles, err := client.ListCloudProfiles(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	for i := range profiles {
		l.CloudProfiles[profiles[i].Name] = &profiles[i]
	}
	// Read for the shoots that name one; one that cannot be read fails
	// only them, with the reason.
	ncps, err := client.ListNamespacedCloudProfiles(ctx, metav1.NamespaceAll, metav1.ListOptions{})
	if err != nil {
		l.nsProfilesErr = fmt.Errorf("listing NamespacedCloudProfiles: %w", err)
	}
	for i := range ncps {
		l.NamespacedCloudProfiles[ncps[i].Namespace+"/"+ncps[i].Name] = &ncps[i]
	}
	if kube != nil {
		cms, err := kube.CoreV1().ConfigMaps(regionConfigNamespace).List(ctx, metav1.ListOptions{
			LabelSelector: corev1alpha1.LabelSchedulingPurpose + "=" + corev1alpha1.LabelSchedulingPurposeRegionConfig,
		})
		switch {
		case err == nil:
			for i := range cms.Items {
				l.RegionConfigs = append(l.RegionConfigs, &cms.Items[i])
			}
		case apierrors.IsForbidden(err):
			l.Warnings = append(l.Warnings, "cannot read region ConfigMaps: "+err.Error())
		default:
			return nil, err
		}
	}
	switch l.Projects, err = client.ListProjects(ctx); {
	case err == nil:
	case apierrors.IsForbidden(err):
		l.Warnings = append(l.Warnings, "cannot read Projects, taking each project's name from its namespace's (garden-<project>): "+err.Error())
	default:
		return nil, err
	}
	return l, nil
}

// Inputs returns the algorithm's inputs for a shoot.
func (l *Landscape) Inputs(shoot *corev1alpha1.Shoot) (algorithm.Inputs, error) {
	return l.inputs.Inputs(shoot)
}

var _ algorithm.Landscape = (*Landscape)(nil)

func (l *Landscape) CloudProfile(name string) (*corev1alpha1.CloudProfile, error) {
	return l.CloudProfiles[name], nil
}

func (l *Landscape) NamespacedCloudProfile(namespace, name string) (*corev1alpha1.NamespacedCloudProfile, error) {
	if p, ok := l.NamespacedCloudProfiles[namespace+"/"+name]; ok {
		return p, nil
	}
	return nil, l.nsProfilesErr
}

func (l *Landscape) Project(namespace string) string { return l.Projects[namespace] }

func (l *Landscape) RegionConfigMaps() []*corev1.ConfigMap { return l.RegionConfigs }

// Migration is set where a bound shoot moves by a control-plane migration
// (Gardener's API), only where Gardener's admission accepts it.
func (l *Landscape) Migration() bool { return l.migrates }

// WithSeed returns a copy of the landscape in which the named seed is replaced
// by seed, to ask what would happen after a change that has not been made
// (drain --dry-run).
func (l *Landscape) WithSeed(seed *corev1alpha1.Seed) *Landscape {
	c := *l
	c.Snapshot = l.Snapshot.Clone()
	if old, ok := c.Snapshot.Seed(seed.Name); ok {
		c.Snapshot.UpdateSeed(old, seed)
	} else {
		c.Snapshot.AddSeed(seed)
	}
	return &c
}

// ShootsOn returns the shoots whose spec.seedName is the named seed.
func (l *Landscape) ShootsOn(seedName string) []*corev1alpha1.Shoot {
	var out []*corev1alpha1.Shoot
	for _, s := range l.Shoots {
		if s.Spec.SeedName != nil && *s.Spec.SeedName == seedName {
			out = append(out, s)
		}
	}
	return out
}
