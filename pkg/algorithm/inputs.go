package algorithm

import (
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

// Landscape is what a decision reads of a garden beside its snapshot. The
// daemons' informers (garden.View), graftctl's listing of a live garden
// (livelandscape) and a landscape file (landscapefile) each implement it, and
// InputsBuilder builds every decision's Inputs over it, so that a shoot is
// decided on the same inputs whoever asks.
type Landscape interface {
	// CloudProfile returns the cluster-wide CloudProfile of that name; nil,
	// or a NotFound error, when there is none.
	CloudProfile(name string) (*v1alpha1.CloudProfile, error)
	// NamespacedCloudProfile returns the NamespacedCloudProfile of that
	// namespace and name; nil, or a NotFound error, when there is none.
	NamespacedCloudProfile(namespace, name string) (*v1alpha1.NamespacedCloudProfile, error)
	// Project returns the name of the Project of a namespace; "": the name
	// Gardener gives a project's namespace (see ProjectOf).
	Project(namespace string) string
	// RegionConfigMaps returns the region ConfigMaps to select from (see
	// SelectRegionConfigMap).
	RegionConfigMaps() []*corev1.ConfigMap
	// Migration is Inputs.Migration: Gardener's API, whose admission decides
	// where a bound shoot's control plane may move.
	Migration() bool
}

// InputsBuilder builds the inputs of decisions over a Landscape. Safe for
// concurrent use when the Landscape is.
type InputsBuilder struct {
	Landscape Landscape
	// Config is the strategy and scoring.
	Config Config
	// RegionConfigName names a ConfigMap in the messages about its entries;
	// nil: namespace/name.
	RegionConfigName func(cm *corev1.ConfigMap) string

	mu sync.Mutex
	// parsed keeps each region ConfigMap's parsed config, by namespace/name,
	// until the ConfigMap changes: a changed one is another object.
	parsed map[string]parsedRegionConfig
}

type parsedRegionConfig struct {
	from   *corev1.ConfigMap
	config *RegionConfig
}

// CloudProfileOf returns the profile a shoot is decided with: the
// cluster-wide CloudProfile it names, or, for a NamespacedCloudProfile of its
// namespace, that profile's merged spec under its own name (NamespacedProfile),
// as Gardener's scheduler reads it; or an error saying why there is none.
func CloudProfileOf(l Landscape, shoot *v1alpha1.Shoot) (*v1alpha1.CloudProfile, error) {
	name := CloudProfileNameOf(shoot)
	if name == "" {
		return nil, fmt.Errorf("shoot %s names no cloud profile", ShootKey(shoot))
	}
	if ref := shoot.Spec.CloudProfile; ref != nil && ref.Kind == KindNamespacedCloudProfile {
		ncp, err := l.NamespacedCloudProfile(shoot.Namespace, name)
		switch {
		case err != nil && !apierrors.IsNotFound(err):
			return nil, fmt.Errorf("reading NamespacedCloudProfile %s/%s: %w", shoot.Namespace, Clip(name), err)
		case ncp == nil:
			return nil, fmt.Errorf("NamespacedCloudProfile %s/%s of shoot %s not found", shoot.Namespace, Clip(name), ShootKey(shoot))
		}
		return NamespacedProfile(ncp)
	}
	profile, err := l.CloudProfile(name)
	switch {
	case err != nil && !apierrors.IsNotFound(err):
		return nil, fmt.Errorf("reading cloud profile %q: %w", Clip(name), err)
	case profile == nil:
		return nil, fmt.Errorf("cloud profile %q of shoot %s not found", Clip(name), ShootKey(shoot))
	}
	return profile, nil
}

// Inputs returns the inputs of a decision about shoot. Without its cloud
// profile they hold no profile (a decision on them fails) and the error
// says why.
func (b *InputsBuilder) Inputs(shoot *v1alpha1.Shoot) (Inputs, error) {
	in := Inputs{Config: b.Config, Migration: b.Landscape.Migration()}
	profile, err := CloudProfileOf(b.Landscape, shoot)
	if err != nil {
		return in, err
	}
	in.CloudProfile = profile
	in.Project = b.Landscape.Project(shoot.Namespace)
	name := CloudProfileNameOf(shoot)
	if profile != nil {
		// A NamespacedCloudProfile's merged spec carries the name region
		// ConfigMaps name it by.
		name = profile.Name
	}
	in.RegionConfig = b.RegionConfig(name)
	return in, nil
}

// RegionConfig returns the parsed region config of a cloud profile, nil when
// no region ConfigMap applies to it. Malformed entries stay inside the config
// and fail only the shoots whose region needs them.
func (b *InputsBuilder) RegionConfig(cloudProfile string) *RegionConfig {
	cm := SelectRegionConfigMap(cloudProfile, b.Landscape.RegionConfigMaps())
	if cm == nil {
		return nil
	}
	key := configMapName(cm)
	b.mu.Lock()
	defer b.mu.Unlock()
	if p, ok := b.parsed[key]; ok && p.from == cm {
		return p.config
	}
	name := key
	if b.RegionConfigName != nil {
		name = b.RegionConfigName(cm)
	}
	rc, _ := ParseRegionConfigNamed(cm, name)
	if b.parsed == nil {
		b.parsed = map[string]parsedRegionConfig{}
	}
	b.parsed[key] = parsedRegionConfig{from: cm, config: rc}
	return rc
}
