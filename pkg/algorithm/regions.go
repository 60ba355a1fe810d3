package algorithm

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/agnivade/levenshtein"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

// orientations are the compass parts of region names, in the order they are
// looked for.
var orientations = []string{"north", "south", "east", "west", "central"}

// SplitRegion splits a region name into its base name and its orientation: the
// first of north, south, east, west, central it contains (looked for in that
// order) is the orientation and is cut out once to leave the base name. A
// region without one has an empty orientation and is its own base name.
func SplitRegion(region string) (base, orientation string) {
	for _, o := range orientations {
		if i := strings.Index(region, o); i >= 0 {
			return region[:i] + region[i+len(o):], o
		}
	}
	return region, ""
}

// LevenshteinDistance is the fallback distance between a shoot's region and a
// seed's region when the region ConfigMap lists none of the candidates: twice
// the Levenshtein distance of the base names, plus 0 when the orientations are
// equal, 1 when either region has none, 2 when they differ, plus 2 more when
// the provider types differ.
func LevenshteinDistance(shootRegion, shootProvider, seedRegion, seedProvider string) int {
	shootBase, shootOrientation := SplitRegion(shootRegion)
	seedBase, seedOrientation := SplitRegion(seedRegion)
	return levenshteinFromParts(shootBase, shootOrientation, shootProvider, seedBase, seedOrientation, seedProvider)
}

func levenshteinFromParts(shootBase, shootOrientation, shootProvider, seedBase, seedOrientation, seedProvider string) int {
	d := 2 * levenshtein.ComputeDistance(shootBase, seedBase)
	d += orientationCorrection(shootOrientation, seedOrientation)
	if shootProvider != seedProvider {
		d += 2
	}
	return d
}

func orientationCorrection(a, b string) int {
	switch {
	case a == "" || b == "":
		return 1
	case a == b:
		return 0
	default:
		return 2
	}
}

// SelectRegionConfigMap returns the region ConfigMap for a cloud profile: among
// the ConfigMaps labelled scheduling.gardener.cloud/purpose=region-config whose
// annotation scheduling.gardener.cloud/cloudprofiles lists the profile
// (comma-separated), the first by name (then namespace). Nil when none matches.
func SelectRegionConfigMap(cloudProfileName string, configMaps []*corev1.ConfigMap) *corev1.ConfigMap {
	var best *corev1.ConfigMap
	for _, cm := range configMaps {
		if cm == nil || !RegionConfigMapAppliesTo(cm, cloudProfileName) {
			continue
		}
		if best == nil || cm.Name < best.Name || (cm.Name == best.Name && cm.Namespace < best.Namespace) {
			best = cm
		}
	}
	return best
}

// RegionConfigMapAppliesTo reports whether the ConfigMap is a region ConfigMap
// listing the cloud profile.
func RegionConfigMapAppliesTo(cm *corev1.ConfigMap, cloudProfileName string) bool {
	if cm.Labels[v1alpha1.LabelSchedulingPurpose] != v1alpha1.LabelSchedulingPurposeRegionConfig {
		return false
	}
	for _, name := range strings.Split(cm.Annotations[v1alpha1.AnnotationSchedulingCloudProfiles], ",") {
		if strings.TrimSpace(name) == cloudProfileName && cloudProfileName != "" {
			return true
		}
	}
	return false
}

// RegionConfig is a parsed region ConfigMap: for each shoot region, the
// distance to seed regions. Entries that could not be parsed are remembered
// with their error and fail only the shoots whose region needs them.
type RegionConfig struct {
	// Source names the ConfigMap (namespace/name) for messages.
	Source    string
	distances map[string]map[string]int
	errs      map[string]error
}

// ParseRegionConfig reads a region ConfigMap's data: key = shoot region, value
// = YAML map of seed region to a non-negative integer distance. It returns the
// usable config and, when some entries are malformed, an error naming each of
// them; the config is usable even then (the bad entries fail only shoots in
// those regions). A nil ConfigMap gives a nil config.
func ParseRegionConfig(cm *corev1.ConfigMap) (*RegionConfig, error) {
	if cm == nil {
		return nil, nil
	}
	return ParseRegionConfigNamed(cm, configMapName(cm))
}

// ParseRegionConfigNamed is ParseRegionConfig with the name messages give the
// ConfigMap, such as the file and document it was read from.
func ParseRegionConfigNamed(cm *corev1.ConfigMap, source string) (*RegionConfig, error) {
	if cm == nil {
		return nil, nil
	}
	rc := &RegionConfig{
		Source:    source,
		distances: make(map[string]map[string]int, len(cm.Data)),
	}
	var errs []error
	keys := make([]string, 0, len(cm.Data))
	for k := range cm.Data {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, region := range keys {
		d, err := parseRegionEntry(rc.Source, region, cm.Data[region])
		if err != nil {
			if rc.errs == nil {
				rc.errs = map[string]error{}
			}
			rc.errs[region] = err
			errs = append(errs, err)
			continue
		}
		rc.distances[region] = d
	}
	return rc, errors.Join(errs...)
}

// Distances returns the configured distances from a shoot region to seed
// regions: nil when the region has no entry (or rc is nil), an error when its
// entry is malformed.
func (rc *RegionConfig) Distances(shootRegion string) (map[string]int, error) {
	if rc == nil {
		return nil, nil
	}
	if err := rc.errs[shootRegion]; err != nil {
		return nil, err
	}
	return rc.distances[shootRegion], nil
}

func configMapName(cm *corev1.ConfigMap) string {
	if cm.Namespace == "" {
		return cm.Name
	}
	return cm.Namespace + "/" + cm.Name
}

func parseRegionEntry(source, region, value string) (map[string]int, error) {
	raw := map[string]any{}
	if err := yaml.Unmarshal([]byte(value), &raw); err != nil {
		return nil, fmt.Errorf("region ConfigMap %s: data[%q] is not a map of seed region to distance: %w", source, region, err)
	}
	out := make(map[string]int, len(raw))
	for seedRegion, v := range raw {
		f, ok := v.(float64)
		if !ok || f != float64(int(f)) || f < 0 {
			return nil, fmt.Errorf("region ConfigMap %s: data[%q][%q] = %v is not a non-negative integer distance", source, region, seedRegion, v)
		}
		out[seedRegion] = int(f)
	}
	return out, nil
}

// regionDistances resolves the configured distances for a shoot region from
// the inputs, preferring the parsed form.
func regionDistances(in *Inputs, shootRegion string) (map[string]int, string, error) {
	if in.RegionConfig != nil {
		d, err := in.RegionConfig.Distances(shootRegion)
		return d, in.RegionConfig.Source, err
	}
	if in.RegionConfigMap == nil {
		return nil, "", nil
	}
	value, ok := in.RegionConfigMap.Data[shootRegion]
	source := configMapName(in.RegionConfigMap)
	if !ok {
		return nil, source, nil
	}
	d, err := parseRegionEntry(source, shootRegion, value)
	return d, source, err
}
