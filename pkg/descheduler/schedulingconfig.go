package descheduler

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"time"

	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
	"k8s.io/klog/v2"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/pkg/schedulingconfig"
)

// publishedWait is how long the descheduler waits at start for graft-scheduler
// to publish its scheduling configuration (both start together on a fresh
// install), publishedPoll how often it looks.
const (
	publishedWait = 5 * time.Minute
	publishedPoll = 2 * time.Second
)

// ResolveSchedulingConfiguration returns a copy of cfg whose strategy, score
// weights and region ConfigMap namespace are graft-scheduler's, as its
// leader publishes them on cfg.SchedulerLease, where cfg leaves them unset:
// requireFit must ask what the scheduler decides. A setting of cfg's own
// overrides the published one and is logged as a warning when it differs.
// It waits, up to publishedWait, for a configuration not yet published or an
// API server that cannot answer yet, and fails at once, saying why, on one
// this build does not understand; with all three set, the published one is
// only compared.
func ResolveSchedulingConfiguration(ctx context.Context, cfg *configv1alpha1.DeschedulerConfiguration, leases coordinationv1client.LeasesGetter) (*configv1alpha1.DeschedulerConfiguration, error) {
	return resolveSchedulingConfiguration(ctx, cfg, leases, publishedWait)
}

func resolveSchedulingConfiguration(ctx context.Context, cfg *configv1alpha1.DeschedulerConfiguration, leases coordinationv1client.LeasesGetter, timeout time.Duration) (*configv1alpha1.DeschedulerConfiguration, error) {
	ref := cfg.SchedulerLease
	log := klog.FromContext(ctx).WithValues("lease", ref.Namespace+"/"+ref.Name)
	complete := cfg.Strategy != "" && cfg.ScoreWeights != nil && cfg.RegionConfigNamespace != ""
	var published schedulingconfig.Published
	var err error
	if complete {
		if published, err = schedulingconfig.Read(ctx, leases, ref.Namespace, ref.Name, Name); err != nil {
			log.Info("Using the scheduling configuration of the configuration file; it cannot be compared with graft-scheduler's", "reason", err.Error())
			return cfg.DeepCopy(), nil
		}
	} else if published, err = waitPublished(ctx, leases, ref, timeout, log); err != nil {
		return nil, err
	}
	out, warnings, err := fromPublished(cfg, published)
	if err != nil {
		return nil, fmt.Errorf("%w (Lease %s/%s)", err, ref.Namespace, ref.Name)
	}
	for _, w := range warnings {
		log.Info("Warning: the configuration file overrides graft-scheduler's scheduling configuration", "difference", w)
	}
	log.Info("Scheduling configuration for requireFit", "strategy", out.Strategy,
		"scoreWeights", schedulingconfig.Describe(schedulingconfig.FromComponentConfig(out.Strategy, out.ScoreWeights)),
		"regionConfigNamespace", out.RegionConfigNamespace)
	return out, nil
}

// waitPublished waits for the published configuration (schedulingconfig.Wait)
// and says how to run without it when none comes.
func waitPublished(ctx context.Context, leases coordinationv1client.LeasesGetter, ref configv1alpha1.LeaseReference, timeout time.Duration, log klog.Logger) (schedulingconfig.Published, error) {
	published, last, err := schedulingconfig.Wait(ctx, leases, ref.Namespace, ref.Name, Name, publishedPoll, timeout, log)
	switch {
	case err == nil:
		return published, nil
	case last != nil && ctx.Err() == nil && !errors.As(err, new(*schedulingconfig.ReadError)):
		return published, fmt.Errorf("graft-scheduler published no scheduling configuration within %s: %w; set strategy, scoreWeights and regionConfigNamespace to run without it, or point schedulerLease at its Lease", timeout, last)
	default:
		return published, fmt.Errorf("reading graft-scheduler's scheduling configuration: %w", err)
	}
}

// fromPublished fills cfg's unset scheduling settings from the published
// configuration and says how the set ones differ from it.
func fromPublished(cfg *configv1alpha1.DeschedulerConfiguration, p schedulingconfig.Published) (*configv1alpha1.DeschedulerConfiguration, []string, error) {
	out := cfg.DeepCopy()
	var warnings []string
	if cfg.Strategy == "" {
		out.Strategy = configv1alpha1.SchedulingStrategy(p.Strategy)
	}
	if cfg.ScoreWeights == nil {
		out.ScoreWeights = schedulingconfig.ComponentScoreWeights(p.ScoreWeights)
	}
	own, theirs := schedulingconfig.FromComponentConfig(out.Strategy, out.ScoreWeights), p.Config()
	if own.Strategy != theirs.Strategy || !maps.Equal(own.ScoreWeights, theirs.ScoreWeights) {
		warnings = append(warnings, fmt.Sprintf("requireFit asks with %s, graft-scheduler decides with %s",
			schedulingconfig.Describe(own), schedulingconfig.Describe(theirs)))
	}
	switch {
	case cfg.RegionConfigNamespace == "" && p.RegionConfigNamespace == "":
		return nil, nil, errors.New("graft-scheduler publishes no regionConfigNamespace (it is older than this graft-descheduler): set regionConfigNamespace")
	case cfg.RegionConfigNamespace == "":
		out.RegionConfigNamespace = p.RegionConfigNamespace
	case p.RegionConfigNamespace != "" && cfg.RegionConfigNamespace != p.RegionConfigNamespace:
		warnings = append(warnings, fmt.Sprintf("regionConfigNamespace %s, graft-scheduler's is %s", cfg.RegionConfigNamespace, p.RegionConfigNamespace))
	}
	return out, warnings, nil
}
