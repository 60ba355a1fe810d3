package main

import (
	"context"

	"github.com/spf13/cobra"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/pkg/capacity"
	"github.com/graft-dev/graft/pkg/component"
)

func main() { component.Main(newCommand()) }

func newCommand() *cobra.Command {
	return component.NewCommand(component.CommandSpec[*configv1alpha1.CapacityAnnotatorConfiguration]{
		Name:  "graft-capacity-annotator",
		Kind:  "CapacityAnnotatorConfiguration",
		Short: "Keep seeds' capacity, allocatable, usage and not-ready taints current",
		Long: `graft-capacity-annotator writes status.capacity, status.allocatable and
status.usage of every seed in the garden: capacity and reserved come from the
configuration, its label-selected overrides and the seed annotations
capacity.graft.dev/shoots and reserved.graft.dev/shoots; usage is the number of
shoots counted on the seed. With healthTaints enabled it also taints seeds that
are not ready with seed.gardener.cloud/not-ready. With forecast enabled it
publishes, per region and pool, the free slots, the shoots waiting for
capacity alone, the arrival rate and the time until full, and on Gardener's
API scales the ManagedSeedSets of its pools.`,
		Run: func(ctx context.Context, cfg *configv1alpha1.CapacityAnnotatorConfiguration, clients component.Clients) error {
			a, err := capacity.New(cfg, clients, capacity.Options{})
			if err != nil {
				return err
			}
			return a.Run(ctx)
		},
	})
}
