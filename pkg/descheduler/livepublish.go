package descheduler

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/algorithm"
	"github.com/graft-dev/graft/pkg/component/leadership"
)

// liveRecord is what the evictor knows of live migrations, as published.
func (ev *evictor) liveRecord() algorithm.LiveRecord {
	ev.mu.Lock()
	defer ev.mu.Unlock()
	p := algorithm.LiveRecord{
		Declared: sets.List(ev.liveFlow.Declared),
		Observed: firstOf(sets.List(ev.liveFlow.Observed)),
		FellBack: firstOf(sets.List(ev.liveFlow.FellBack)),
	}
	if p.Declared == nil {
		p.Declared = []string{}
	}
	for key, w := range ev.liveWritten {
		p.Pending = append(p.Pending, algorithm.LiveRecordWrite{Shoot: key, UID: w.uid, From: w.from, To: w.to, Target: w.target, Before: w.before})
	}
	slices.SortFunc(p.Pending, func(a, b algorithm.LiveRecordWrite) int { return cmp.Compare(a.Shoot, b.Shoot) })
	p.Pending = firstOf(p.Pending)
	return p
}

func firstOf[T any](list []T) []T {
	if len(list) > algorithm.MaxLiveRecordEntries {
		return list[:algorithm.MaxLiveRecordEntries]
	}
	return list
}

// liveChanged asks the publishing loop to write the record again.
func (ev *evictor) liveChanged() {
	select {
	case ev.livePublish <- struct{}{}:
	default: // one is pending: it writes the newest record
	}
}

// liveLease is the Publisher of the live migration record, nil without
// leader election (no Lease to keep it on: a restart forgets it).
func (d *Descheduler) liveLease() *leadership.Publisher {
	le := d.cfg.LeaderElection
	if !configv1alpha1.IsLeaderElectionEnabled(le) || d.runner == nil || d.runner.Elector == nil {
		return nil
	}
	return &leadership.Publisher{Leases: d.runner.Kubernetes.CoordinationV1(), Namespace: le.ResourceNamespace, Name: le.ResourceName,
		Identity: d.runner.Elector.Identity, Annotation: algorithm.LiveRecordAnnotation, What: "the live migration record"}
}

// recallLiveFlow starts from the record the last leader published: its
// observed versions, its fallbacks unless liveMigrationGardenletVersions
// changed since, and its unanswered live intents, each judged at once by
// the shoot as the informer has it. It runs while leading, before the first
// pass; a record that cannot be read is logged and this process starts
// from its configuration alone. It tells whether there was a record.
func (d *Descheduler) recallLiveFlow(ctx context.Context, p *leadership.Publisher) bool {
	log := klog.FromContext(ctx)
	lease, err := p.Leases.Leases(p.Namespace).Get(ctx, p.Name, metav1.GetOptions{})
	if err != nil {
		log.Error(err, "Reading the live migration record; live moves are timed by the configuration and this process's observations alone")
		return false
	}
	value, ok := lease.Annotations[algorithm.LiveRecordAnnotation]
	if !ok {
		return false
	}
	rec, err := algorithm.DecodeLiveRecord(value)
	if err != nil {
		log.Error(err, "Live migration record ignored")
		return true
	}
	ev := d.ev
	ev.mu.Lock()
	ev.liveFlow.Observed.Insert(rec.Observed...)
	same := rec.SameDeclaration(d.cfg.LiveMigrationGardenletVersions)
	if same {
		ev.liveFlow.FellBack.Insert(rec.FellBack...)
	}
	for _, w := range rec.Pending {
		if _, ok := ev.liveWritten[w.Shoot]; !ok {
			ev.liveWritten[w.Shoot] = liveWrite{uid: w.UID, pair: algorithm.LivePair(w.From, w.To), from: w.From, to: w.To, target: w.Target, before: w.Before}
		}
	}
	ev.mu.Unlock()
	if !same && len(rec.FellBack) > 0 {
		log.Info("liveMigrationGardenletVersions changed: the version pairs that fell back are timed as live again where declared", "was", rec.Declared, "now", d.cfg.LiveMigrationGardenletVersions, "fellBack", rec.FellBack)
	}
	pending := sets.New[string]()
	for _, w := range rec.Pending {
		pending.Insert(w.Shoot)
	}
	var found []*v1alpha1.Shoot
	d.state.eachShoot(func(s *v1alpha1.Shoot) {
		if pending.Has(algorithm.ShootKey(s)) {
			found = append(found, s)
		}
	})
	for _, s := range found {
		pending.Delete(algorithm.ShootKey(s))
		ev.liveObserved(s)
	}
	// A shoot deleted meanwhile answers nothing.
	ev.mu.Lock()
	for key := range pending {
		delete(ev.liveWritten, key)
	}
	ev.mu.Unlock()
	log.Info("Recalled the live migration record", "observed", rec.Observed, "fellBack", rec.FellBack, "kept", same, "pending", len(rec.Pending))
	return true
}

// publishLiveFlow writes the live migration record onto the Lease each time
// it changes, until ctx ends. A write is fenced by the Lease itself (held
// by this replica, at the resourceVersion read); one that fails is tried
// again with backoff, and a newer change replaces it.
func (d *Descheduler) publishLiveFlow(ctx context.Context, p *leadership.Publisher) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-d.ev.livePublish:
		}
		value, err := json.Marshal(d.ev.liveRecord())
		if err != nil {
			klog.FromContext(ctx).Error(err, "Encoding the live migration record")
			continue
		}
		publish := *p
		publish.Value = string(value)
		if err := publish.Run(ctx); err != nil && !errors.Is(err, leadership.ErrNotHolder) && ctx.Err() == nil {
			klog.FromContext(ctx).Error(err, "Could not publish the live migration record")
		}
	}
}
