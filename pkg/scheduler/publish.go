package scheduler

import (
	"context"

	"k8s.io/klog/v2"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/pkg/component/leadership"
	"github.com/graft-dev/graft/pkg/schedulingconfig"
)

// replicaIdentity returns identity, or a new one when it is empty: the
// scheduler must know the identity it leads with to publish its
// configuration only onto a Lease it holds.
func replicaIdentity(identity string) string {
	if identity == "" {
		return leadership.NewIdentity()
	}
	return identity
}

// publishConfiguration writes the scheduling configuration as applied onto
// the Lease this replica leads with, for graftctl to explain decisions with
// it (see leadership.Publisher). It runs while leading, beside the
// workers, and gives up when scheduling stops; a failure is logged, not fatal:
// scheduling does not depend on it. Without leader election there is no Lease
// and nothing is published.
func (s *Scheduler) publishConfiguration(ctx context.Context) {
	logger := klog.FromContext(ctx)
	le := s.config.LeaderElection
	if !configv1alpha1.IsLeaderElectionEnabled(le) {
		logger.V(1).Info("Leader election is off: the scheduling configuration is not published on a Lease")
		return
	}
	value, err := schedulingconfig.Encode(s.config.SchedulerName, s.config.RegionConfigNamespace, s.algConfig)
	if err != nil {
		logger.Error(err, "Could not encode the scheduling configuration for the Lease")
		return
	}
	p := &leadership.Publisher{
		// The leader election client: the Lease write is fenced by the
		// Lease itself (holder and resourceVersion), not by the fence its
		// renewals open.
		Leases:     s.runner.Kubernetes.CoordinationV1(),
		Namespace:  le.ResourceNamespace,
		Name:       le.ResourceName,
		Identity:   s.runner.Elector.Identity,
		Annotation: schedulingconfig.Annotation,
		Value:      value,
		What:       "the scheduling configuration",
	}
	_ = p.Run(ctx) // Run logs the outcome
}
