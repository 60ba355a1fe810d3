package algorithm

import (
	"fmt"
	"strconv"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"
)

// DefaultLiveMigrationDistance is the largest inter-region distance a live
// control-plane migration may cross when the region ConfigMap sets none.
const DefaultLiveMigrationDistance = 180

// ShootLiveMigrationBlocker says what keeps the shoot's control plane from
// moving live (GEP-39), whatever the seeds: it must be highly available and
// neither hibernated nor waking up. "" when nothing does.
func ShootLiveMigrationBlocker(shoot *v1alpha1.Shoot) string {
	if shoot.Spec.ControlPlane == nil || shoot.Spec.ControlPlane.HighAvailability == nil {
		return "its control plane is not highly available"
	}
	if helper.ShootInHibernation(shoot) {
		return "it is hibernated or waking up"
	}
	return ""
}

// LiveMigrationBlocker says what keeps the shoot's control plane from moving
// live from one seed to another, as Gardener's admission checks GEP-39's
// prerequisites: the shoot's own (ShootLiveMigrationBlocker), the same
// provider type and reported gardenlet version on both seeds, and, between
// regions, a distance in the region ConfigMap (regions, of the shoot's cloud
// profile) within its threshold unless the shoot allows distant regions.
// "" when nothing does.
func LiveMigrationBlocker(shoot *v1alpha1.Shoot, from, to *v1alpha1.Seed, regions *RegionConfig) string {
	if why := ShootLiveMigrationBlocker(shoot); why != "" {
		return why
	}
	if from.Spec.Provider.Type != to.Spec.Provider.Type {
		return fmt.Sprintf("the seeds' provider types differ (%s, %s)", Clip(from.Spec.Provider.Type), Clip(to.Spec.Provider.Type))
	}
	fv, tv := agentVersion(from), agentVersion(to)
	switch {
	case fv == "" || tv == "":
		return "a seed reports no gardenlet version"
	case fv != tv:
		return fmt.Sprintf("the seeds run different gardenlet versions (%s, %s)", Clip(fv), Clip(tv))
	}
	fr, tr := from.Spec.Provider.Region, to.Spec.Provider.Region
	if allow, _ := strconv.ParseBool(shoot.Annotations[v1alpha1.AnnotationAllowDistantRegions]); fr == tr || allow {
		return ""
	}
	if regions == nil {
		return "no region ConfigMap gives the distance between the seeds' regions"
	}
	if regions.thresholdErr != nil {
		return regions.thresholdErr.Error()
	}
	distances, err := regions.Distances(fr)
	if err != nil {
		return err.Error()
	}
	d, ok := distances[tr]
	switch {
	case !ok:
		return fmt.Sprintf("region ConfigMap %s gives no distance from %s to %s", regions.Source, Clip(fr), Clip(tr))
	case d > regions.liveThreshold:
		return fmt.Sprintf("the distance from %s to %s is %d, beyond the threshold %d", Clip(fr), Clip(tr), d, regions.liveThreshold)
	}
	return ""
}

func agentVersion(seed *v1alpha1.Seed) string {
	if seed.Status.Gardener == nil {
		return ""
	}
	return seed.Status.Gardener.Version
}

// Regions is the parsed region ConfigMap of the inputs: RegionConfig, or
// RegionConfigMap parsed (its malformed entries fail only what needs them).
func (in *Inputs) Regions() *RegionConfig {
	if in.RegionConfig != nil || in.RegionConfigMap == nil {
		return in.RegionConfig
	}
	rc, _ := ParseRegionConfig(in.RegionConfigMap)
	return rc
}
