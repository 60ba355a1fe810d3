package main

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/capacity/poolscaler"
	"github.com/graft-dev/graft/pkg/controlplane/gardenerlandscape"
	"github.com/graft-dev/graft/pkg/garden"
	"github.com/graft-dev/graft/test/invariant"
)

// The Gardener mode's scaled pool: graft-capacity-annotator forecasts with
// a short window and horizon and scales the ManagedSeedSet chaos-pool,
// whose replicas register seeds in the first region; a stand-in for
// Gardener's ManagedSeedSet controller (and each new seed's gardenlet)
// registers the seed of every replica asked for. Tenants recreate shoots of
// the pool (recreatePoolShoots). The checker judges every scale-out against
// the demand it names (rulePoolDemand).
const (
	poolName        = "chaos-pool"
	poolLabel       = "chaos.graft.dev/pool"
	poolSeedShoots  = 4
	poolMaxReplicas = 4
	poolPeriod      = 5 * time.Second
	poolWindow      = 2 * time.Minute
	poolHorizon     = 3 * time.Minute
	// poolGrace is how long before a scale-out's Event the demand it names
	// may have been seen: a forecast period, the forecaster's informer lag
	// and the Event's own delay.
	poolGrace = poolPeriod + 15*time.Second
)

// rulePoolDemand: a scale-out named demand that the garden did not have
// within poolGrace before it: no shoot of the pool's region pending, no
// full pool, or no net growth of the pool over the forecast window (shoots
// created within it less those created before it and deleted within it).
const rulePoolDemand invariant.Rule = "ScaleOutWithoutNetDemand"

var poolRegion = gardenerRegions[0]

// poolValues are graft-capacity-annotator's values for the pool.
func poolValues() []string {
	return []string{
		"config.forecast.enabled=true",
		"config.forecast.period=" + poolPeriod.String(),
		"config.forecast.window=" + poolWindow.String(),
		"config.forecast.horizon=" + poolHorizon.String(),
		"config.pools[0].name=" + poolName,
		`config.pools[0].seedSelector.matchLabels.` + strings.ReplaceAll(poolLabel, ".", `\.`) + "=" + poolName,
		"config.pools[0].managedSeedSet.name=" + poolName,
		fmt.Sprintf("config.pools[0].managedSeedSet.maxReplicas=%d", poolMaxReplicas),
		"config.pools[0].managedSeedSet.coolDown=1m",
	}
}

// poolSeed is the Gardener Seed of the pool's replica ordinal.
func poolSeed(ordinal int) (*unstructured.Unstructured, error) {
	s := gardenerlandscape.MakeSeed(fmt.Sprintf("%s-%d", poolName, ordinal), poolRegion, 6+ordinal).Backup(gardenerlandscape.ProviderType).
		InternalDomain(gardenerInternalDomain).DefaultDomains(gardenerDefaultDomain).Label(poolLabel, poolName).Obj()
	return gardenerlandscape.Seed(s, gardenerDNSSecret)
}

// createPool creates the ManagedSeedSet with one replica, through
// gardener-apiserver's validation.
func (r *run) createPool(ctx context.Context) error {
	seed, err := poolSeed(0)
	if err != nil {
		return err
	}
	shoot, err := gardenerlandscape.Shoot(gardenerlandscape.MakeShoot("garden", poolName, gardenerCloudProfile, poolRegion).Obj(), gardenerCredentials)
	if err != nil {
		return err
	}
	set, err := gardenerlandscape.ManagedSeedSet(poolName, 1, map[string]string{poolLabel: poolName}, seed, shoot)
	if err != nil {
		return err
	}
	_, err = r.g.creator.Apply(ctx, garden.ManagedSeedSetResource, "garden", set)
	return err
}

// poolStandIn registers the seed of every replica the set asks for, ready
// with room for poolSeedShoots, once a second until ctx ends.
func (r *run) poolStandIn(ctx context.Context) {
	sets := r.g.dynamic.Resource(garden.ManagedSeedSetResource).Namespace("garden")
	registered := map[int]bool{0: true} // registered before the run starts
	for ctx.Err() == nil {
		if set, err := sets.Get(ctx, poolName, metav1.GetOptions{}); err == nil {
			replicas, _, _ := unstructured.NestedInt64(set.Object, "spec", "replicas")
			for ord := 0; ord < int(replicas); ord++ {
				if registered[ord] {
					continue
				}
				if err := r.registerPoolSeed(ctx, ord); err != nil {
					r.logf("pool: registering the seed of replica %d: %v", ord, err)
					break
				}
				registered[ord] = true
				r.mu.Lock()
				r.poolReplicas = max(r.poolReplicas, ord+1)
				r.mu.Unlock()
				r.logf("pool: replica %d of %s registered its seed", ord, poolName)
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

func (r *run) registerPoolSeed(ctx context.Context, ord int) error {
	seed, err := poolSeed(ord)
	if err != nil {
		return err
	}
	c, cancel := r.reqCtx(ctx)
	defer cancel()
	if _, err := r.g.creator.Apply(c, gardenerlandscape.Seeds, "", seed); err != nil {
		return err
	}
	return r.g.creator.MarkReady(c, seed.GetName(), poolSeedShoots)
}

// recreatePoolShoots is a tenant's churn without growth: it deletes up to
// three of the shoots on the pool's seeds and creates as many new ones.
func (r *run) recreatePoolShoots(ctx context.Context) {
	victims := r.check.shootsOnPool(3)
	for _, k := range victims {
		if !r.forget(k) {
			continue
		}
		_, name, _ := strings.Cut(k, "/")
		r.check.Deleted(k)
		c, cancel := r.reqCtx(ctx)
		if err := r.deleteGardenerShoot(c, name); err != nil {
			r.logf("recreate: delete shoot %s: %v", k, err)
		}
		cancel()
		r.createShoot(ctx)
	}
	r.count("recreatePoolShoots")
}

// poolJudge keeps what rulePoolDemand needs: the pool's departures and,
// every second, whether the garden had demand for the pool.
type poolJudge struct {
	mu         sync.Mutex
	departures []poolDeparture
	demand     []demandSample
	judged     map[string]bool // Event uid/count
	// scaleOuts counts the scale-outs judged, by the demand they named.
	scaleOuts map[string]int
}

type poolDeparture struct{ created, deleted time.Time }

type demandSample struct {
	at                    time.Time
	waiting, full, growth bool
}

func newPoolJudge() *poolJudge {
	return &poolJudge{judged: map[string]bool{}, scaleOuts: map[string]int{}}
}

// poolDepartedLocked records a deleted shoot that ran on a pool seed.
func (c *checker) poolDepartedLocked(s *corev1alpha1.Shoot, seed string, now time.Time) {
	if c.pool == nil || seed == "" {
		return
	}
	if obj, ok := c.objects[invariant.KindSeed][seed].(*corev1alpha1.Seed); !ok || obj.Labels[poolLabel] != poolName {
		return
	}
	c.pool.mu.Lock()
	defer c.pool.mu.Unlock()
	c.pool.departures = append(c.pool.departures, poolDeparture{created: s.CreationTimestamp.Time, deleted: now})
}

// samplePool records whether the garden has demand for the pool now.
func (c *checker) samplePool(now time.Time) {
	if c.pool == nil {
		return
	}
	c.mu.Lock()
	var alloc, usage, arrivals int64
	pool := map[string]bool{}
	for name, o := range c.objects[invariant.KindSeed] {
		seed, ok := o.(*corev1alpha1.Seed)
		if !ok || seed.Labels[poolLabel] != poolName {
			continue
		}
		pool[name] = true
		if q, ok := seed.Status.Allocatable[corev1alpha1.ResourceShoots]; ok {
			alloc += q.Value()
		}
	}
	waiting := false
	begins := now.Add(-poolWindow)
	for _, o := range c.objects[invariant.KindShoot] {
		shoot, ok := o.(*corev1alpha1.Shoot)
		if !ok {
			continue
		}
		seed := seedName(shoot)
		if seed == "" && shoot.Spec.Region == poolRegion && shoot.DeletionTimestamp == nil {
			waiting = true
		}
		if pool[seed] {
			usage++
			if shoot.CreationTimestamp.After(begins) {
				arrivals++
			}
		}
	}
	c.mu.Unlock()
	p := c.pool
	p.mu.Lock()
	defer p.mu.Unlock()
	var departed int64
	kept := p.departures[:0]
	for _, d := range p.departures {
		if now.Sub(d.deleted) > poolWindow+poolGrace {
			continue
		}
		kept = append(kept, d)
		if d.deleted.After(begins) && !d.created.After(begins) {
			departed++
		}
	}
	p.departures = kept
	p.demand = append(p.demand, demandSample{at: now, waiting: waiting, full: alloc > 0 && usage >= alloc, growth: arrivals > departed})
	for len(p.demand) > 0 && now.Sub(p.demand[0].at) > 2*poolGrace {
		p.demand = p.demand[1:]
	}
}

// scaleOutReason is the demand a ScaledOut Event's message names (the
// scaler's texts, after the step).
func scaleOutReason(message string) string {
	switch {
	case strings.Contains(message, "for capacity alone"):
		return "waiting"
	case strings.Contains(message, "no free slot is left"):
		return "full"
	case strings.Contains(message, "new shoots an hour"):
		return "growth"
	}
	return "unknown"
}

// judgePool judges the ScaledOut Events of the pool's set not judged yet.
func (c *checker) judgePool(events []corev1.Event) {
	p := c.pool
	for _, ev := range events {
		p.mu.Lock()
		id := fmt.Sprintf("%s/%d", ev.UID, ev.Count)
		seen := p.judged[id]
		p.judged[id] = true
		p.mu.Unlock()
		if seen {
			continue
		}
		at := ev.LastTimestamp.Time
		if at.IsZero() {
			at = ev.EventTime.Time
		}
		why := scaleOutReason(ev.Message)
		p.mu.Lock()
		p.scaleOuts[why]++
		ok := false
		for _, s := range p.demand {
			if s.at.Before(at.Add(-poolGrace)) || s.at.After(at.Add(2*time.Second)) {
				continue
			}
			if (why == "waiting" && s.waiting) || (why == "full" && s.full) || (why == "growth" && s.growth) {
				ok = true
			}
		}
		p.mu.Unlock()
		if !ok {
			c.violate(invariant.Violation{Rule: rulePoolDemand, At: at, Message: fmt.Sprintf(
				"ManagedSeedSet %s scaled out (%q) although the garden had no such demand within %s before", poolName, ev.Message, poolGrace)})
		}
	}
}

// followPool judges the pool's scale-outs every two seconds until ctx ends.
func (c *checker) followPool(ctx context.Context, r *run) {
	selector := fields.Set{"involvedObject.kind": "ManagedSeedSet", "involvedObject.name": poolName, "reason": poolscaler.ReasonScaledOut}.AsSelector().String()
	for ctx.Err() == nil {
		c2, cancel := r.reqCtx(ctx)
		list, err := r.kube.CoreV1().Events("garden").List(c2, metav1.ListOptions{FieldSelector: selector})
		cancel()
		if err == nil {
			c.judgePool(list.Items)
		}
		select {
		case <-ctx.Done():
		case <-time.After(2 * time.Second):
		}
	}
}

// poolCounts are the scale-outs judged by the demand they named, as text.
func (c *checker) poolCounts() string {
	if c.pool == nil {
		return ""
	}
	c.pool.mu.Lock()
	defer c.pool.mu.Unlock()
	var parts []string
	for _, why := range []string{"waiting", "full", "growth", "unknown"} {
		parts = append(parts, why+"="+strconv.Itoa(c.pool.scaleOuts[why]))
	}
	return strings.Join(parts, " ")
}

// shootsOnPool are up to n of the run's shoots on the pool's seeds.
func (c *checker) shootsOnPool(n int) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	keys := slices.Sorted(maps.Keys(c.seedOf))
	var out []string
	for _, k := range keys {
		seed := c.seedOf[k]
		if len(out) == n {
			break
		}
		if obj, ok := c.objects[invariant.KindSeed][seed].(*corev1alpha1.Seed); ok && obj.Labels[poolLabel] == poolName && !c.deleted[k] {
			if _, ours := c.created[k]; ours {
				out = append(out, k)
			}
		}
	}
	return out
}
