package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/controlplane/gardenerlandscape"
	"github.com/graft-dev/graft/pkg/garden"
	"github.com/graft-dev/graft/test/perf/writes"
)

// gardenerSchedulerName is graft-scheduler's name on Gardener's API.
const gardenerSchedulerName = "graft-scheduler"

// gardenerProject is the project whose namespace ns is (garden-<project>).
func gardenerProject(ns string) string { return strings.TrimPrefix(ns, "garden-") }

// setupGardener creates, through gardener-apiserver, a project for each of
// the bench's namespaces, the cloud profile and the seeds, each seed with the
// status a ready gardenlet reports and ample allocatable shoots.
func (b *bench) setupGardener(ctx context.Context) error {
	c := gardenerlandscape.Creator{Dynamic: b.gardener, Kube: b.kube}
	var seeds []*v1alpha1.Seed
	for i := 0; i < b.o.seeds; i++ {
		// The index only spreads the seeds' own networks, which seeds may share.
		seeds = append(seeds, gardenerlandscape.MakeSeed(seedName(i), regions[i%len(regions)], i%40).Obj())
	}
	for _, ns := range []string{nsCalibration, nsBaseline1, nsScheduler, nsBaseline2} {
		project := gardenerProject(ns)
		p := gardenerlandscape.ProjectSpec{Name: project, Namespace: ns, CloudProfile: b.profile, Credentials: project + "-credentials",
			DNSSecret: "bench-dns", Regions: regions}
		if ns == nsScheduler {
			p.Seeds = seeds
		}
		if err := c.Create(ctx, p); err != nil {
			return err
		}
	}
	allocatable := 2*b.o.shoots/b.o.seeds*len(regions) + 10
	return writes.Parallel(b.o.seeds, 16, func(i int) error { return c.MarkReady(ctx, seedName(i), allocatable) })
}

// createGardenerShoots creates n Gardener shoots without a seed in ns,
// through gardener-apiserver's validation and admission.
func (b *bench) createGardenerShoots(ctx context.Context, ns, schedulerName string, n int) ([]created, error) {
	if schedulerName == "" {
		schedulerName = gardenerSchedulerName
	}
	c := gardenerlandscape.Creator{Dynamic: b.gardener, Kube: b.kube}
	out := make([]created, n)
	err := writes.Parallel(n, 32, func(i int) error {
		shoot := gardenerlandscape.MakeShoot(ns, fmt.Sprintf("s%05d", i), b.profile, regions[i%len(regions)]).SchedulerName(schedulerName).Obj()
		obj, err := gardenerlandscape.Shoot(shoot, gardenerProject(ns)+"-credentials")
		if err != nil {
			return err
		}
		obj, err = c.Apply(ctx, gardenerlandscape.Shoots, ns, obj)
		if err != nil {
			return err
		}
		at := time.Now()
		converted, err := garden.FromGardener(obj.DeepCopy())
		if err != nil {
			return err
		}
		out[i] = created{shoot: converted.(*v1alpha1.Shoot), at: at}
		return nil
	})
	return out, err
}
