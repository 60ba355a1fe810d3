package descheduler

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/algorithm"
)

// reportStuck counts the stuck moves for graft_descheduler_migrations_stuck
// and reports each newly stuck one once: a MoveStuck Event on the shoot and
// on the seed it leaves. docs/operations.md ("A stuck move") says what an
// operator does then.
func (d *Descheduler) reportStuck(now time.Time) {
	total, fresh := d.state.stuckMoves(now, d.ev.leftSeed)
	d.metrics.MigrationsStuck.Set(float64(total))
	for _, m := range fresh {
		if d.scope != "" && m.from != d.scope {
			// A drain tells of its own seed's moves; the daemon of the rest.
			continue
		}
		why := fmt.Sprintf("in flight since %s, longer than migrationTimeout (%s)", m.since.UTC().Format(time.RFC3339), d.state.migrationTimeout)
		if d.state.moves.Failed(m.shoot) {
			op := m.shoot.Status.LastOperation
			why = fmt.Sprintf("its %s failed: %s", op.Type, algorithm.Clip(op.Description))
		}
		move := "off seed " + m.from
		if m.from == "" {
			move = "off its seed"
		}
		if m.to != "" {
			move += " to seed " + m.to
		}
		klog.InfoS("Move stuck", "shoot", klog.KObj(m.shoot), "from", m.from, "to", m.to, "why", why)
		d.ev.recorder.Eventf(d.api.ShootRef(m.shoot), corev1.EventTypeWarning, EventMoveStuck,
			"The shoot's move %s is stuck: %s. It no longer counts against the budgets of moves in flight; see graft's docs/operations.md, \"A stuck move\"", move, why)
		if seed, ok := d.seed(m.from); ok {
			d.ev.recorder.Eventf(d.api.SeedRef(seed), corev1.EventTypeWarning, EventMoveStuck,
				"The move of shoot %s/%s off this seed is stuck: %s", m.shoot.Namespace, m.shoot.Name, why)
		}
	}
}

// leftSeed is the seed the shoot's move leaves: as the API shows it (on
// Gardener its status.seedName), else the seed of its last eviction record
// the descheduler signed ("" when none).
func (ev *evictor) leftSeed(shoot *v1alpha1.Shoot) string {
	if seed, known := ev.state.moves.Leaves(shoot); known {
		return seed
	}
	if records := ev.records.verified(shoot); len(records) > 0 {
		return records[len(records)-1].Seed
	}
	return ""
}

// seed returns the named seed as the state knows it.
func (d *Descheduler) seed(name string) (*v1alpha1.Seed, bool) {
	if name == "" {
		return nil, false
	}
	d.state.mu.Lock()
	defer d.state.mu.Unlock()
	return d.state.snapshot.Seed(name)
}
