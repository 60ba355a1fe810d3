package algorithm

import (
	"sync"

	corev1 "k8s.io/api/core/v1"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

// InputsBuilder gathers what a decision needs besides the snapshot, from what
// its caller holds: informers' listers in the daemons, one listing in
// graftctl, files in simulate. Every caller builds Inputs through it, so that
// all decide on the same inputs. Safe for concurrent use.
type InputsBuilder struct {
	// Config is the strategy and scoring.
	Config Config
	// Migration is Inputs.Migration: Gardener's API, whose admission decides
	// where a bound shoot's control plane may move.
	Migration bool
	// CloudProfile returns the shoot's cloud profile (see
	// CloudProfileNameOf), or an error saying why there is none.
	CloudProfile func(shoot *v1alpha1.Shoot) (*v1alpha1.CloudProfile, error)
	// Project returns the name of the Project of a namespace; nil or "":
	// the name Gardener gives a project's namespace (see ProjectOf).
	Project func(namespace string) string
	// RegionConfigMaps returns the region ConfigMaps to select from (see
	// SelectRegionConfigMap); nil: none.
	RegionConfigMaps func() []*corev1.ConfigMap
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

// Inputs returns the inputs of a decision about shoot.
func (b *InputsBuilder) Inputs(shoot *v1alpha1.Shoot) (Inputs, error) {
	profile, err := b.CloudProfile(shoot)
	if err != nil {
		return Inputs{}, err
	}
	in := Inputs{CloudProfile: profile, Config: b.Config, Migration: b.Migration}
	if b.Project != nil {
		in.Project = b.Project(shoot.Namespace)
	}
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
	if b.RegionConfigMaps == nil {
		return nil
	}
	cm := SelectRegionConfigMap(cloudProfile, b.RegionConfigMaps())
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
