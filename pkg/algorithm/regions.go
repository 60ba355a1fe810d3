package algorithm

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/agnivade/levenshtein"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

// orientations are the compass parts of region names, in the order they are
// looked for.
var orientations = []string{"north", "south", "east", "west", "central"}

// MaxFallbackDistance is the largest Levenshtein fallback distance at which
// the reference scheduler still considers a seed (without score weights):
// region base names more than 500 edits apart.
const MaxFallbackDistance = 1000

// MaxRegionLength is the longest region name a decision takes, in bytes; the
// Shoot CRD's spec.region has the same maxLength.
const MaxRegionLength = 128

// orientationPlaceholder stands where the orientation was cut out of a region
// name, so that "eu-west-1" and "eu-1" have different base names.
const orientationPlaceholder = ":"

// SplitRegion splits a region name into its base name and its orientation: the
// first of north, south, east, west, central it contains (looked for in that
// order) is the orientation, and its first occurrence is replaced by ":" to
// give the base name ("eu-west-1" is "eu-:-1" and "west"). A region without
// one has an empty orientation and is its own base name.
func SplitRegion(region string) (base, orientation string) {
	for _, o := range orientations {
		if i := strings.Index(region, o); i >= 0 {
			return region[:i] + orientationPlaceholder + region[i+len(o):], o
		}
	}
	return region, ""
}

// LevenshteinDistance is the fallback distance between a shoot's region and a
// seed's region when the region ConfigMap lists none of the candidates, as the
// reference scheduler computes it: twice the Levenshtein distance of the base
// names (see SplitRegion), plus 0 when the orientations are equal (also when
// neither region has one), 1 when exactly one region has one, 2 when they
// differ, plus 2 more when the provider types differ.
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
	case a == b:
		return 0
	case a == "" || b == "":
		return 1
	default:
		return 2
	}
}

// SelectRegionConfigMap returns the region ConfigMap of a cloud profile: of
// the region-config ConfigMaps whose cloudprofiles annotation lists it, the
// first by name (then namespace), or nil. Callers pass the ConfigMaps of the
// one namespace they read them from, so that no tenant steers decisions.
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
	// liveThreshold is the largest distance a live migration may cross
	// (AnnotationInterRegionDistanceThreshold, 180 when unset); thresholdErr
	// says why the annotation could not be read.
	liveThreshold int
	thresholdErr  error
}

// ParseRegionConfig reads a region ConfigMap's data as the reference scheduler
// does: key = shoot region, value = YAML map of seed region to an integer
// distance. An empty value is no entry (the Levenshtein fallback applies), a
// negative distance is a distance like any other and a null one is 0. It
// returns the usable config and, when some entries are malformed, an error
// naming each of them; the config is usable even then (the bad entries fail
// only shoots in those regions). A nil ConfigMap gives a nil config.
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
		Source:        source,
		distances:     make(map[string]map[string]int, len(cm.Data)),
		liveThreshold: DefaultLiveMigrationDistance,
	}
	if v, ok := cm.Annotations[v1alpha1.AnnotationInterRegionDistanceThreshold]; ok {
		n, err := strconv.Atoi(v)
		switch {
		case err != nil:
			rc.thresholdErr = fmt.Errorf("%s: annotation %s=%q is not an integer", source, v1alpha1.AnnotationInterRegionDistanceThreshold, Clip(v))
		case n < 0:
			rc.thresholdErr = fmt.Errorf("%s: annotation %s=%d is negative", source, v1alpha1.AnnotationInterRegionDistanceThreshold, n)
		default:
			rc.liveThreshold = n
		}
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
		if d != nil {
			rc.distances[region] = d
		}
	}
	return rc, errors.Join(errs...)
}

// Distances returns the configured distances from a shoot region to seed
// regions: nil when the region has no entry or an empty one (or rc is nil),
// an error when its entry is malformed.
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

// parseRegionEntry reads one data entry. What it accepts is exactly what the
// reference scheduler's YAML decoding into a map of string to int accepts, so
// that a ConfigMap steers both alike; it returns nil, nil for an empty value,
// which the reference scheduler treats as no entry.
func parseRegionEntry(source, region, value string) (map[string]int, error) {
	if value == "" {
		return nil, nil
	}
	var out map[string]int
	if err := yaml.Unmarshal([]byte(value), &out); err != nil {
		if key, v, ok := firstNonInteger(value); ok {
			return nil, fmt.Errorf("region ConfigMap %s: data[%q][%q] = %v is not an integer distance", source, region, key, v)
		}
		return nil, fmt.Errorf("region ConfigMap %s: data[%q] is not a map of seed region to integer distance: %w", source, region, err)
	}
	if out == nil {
		// A value holding no YAML document, or null: the reference scheduler
		// fails on it when it adds the shoot region's own distance.
		return nil, fmt.Errorf("region ConfigMap %s: data[%q] is empty or null, not a map of seed region to integer distance", source, region)
	}
	return out, nil
}

// firstNonInteger finds, for a clearer message than the decoder's, the first
// seed region (by name) whose distance is not an integer.
func firstNonInteger(value string) (string, any, bool) {
	var raw map[string]any
	if yaml.Unmarshal([]byte(value), &raw) != nil {
		return "", nil, false
	}
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v := raw[k]
		if f, ok := v.(float64); v == nil || ok && f == math.Trunc(f) && math.Abs(f) < 1<<63 {
			continue
		}
		return k, v, true
	}
	return "", nil, false
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
	source := configMapName(in.RegionConfigMap)
	d, err := parseRegionEntry(source, shootRegion, in.RegionConfigMap.Data[shootRegion])
	return d, source, err
}
