package main

import (
	"context"

	"github.com/spf13/cobra"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/pkg/component"
	"github.com/graft-dev/graft/pkg/scheduler"
)

func main() { component.Main(newCommand()) }

func newCommand() *cobra.Command {
	return component.NewCommand(component.CommandSpec[*configv1alpha1.SchedulerConfiguration]{
		Name:  "graft-scheduler",
		Kind:  "SchedulerConfiguration",
		Short: "Bind pending shoots to seeds",
		Long: `graft-scheduler watches shoots without spec.seedName that name it (or no
scheduler) and binds each to the seed the shared scheduling algorithm chooses.
Replicas elect a leader through a Lease; only the leader schedules. A lost lease
ends the process, so that it restarts as a standby.`,
		Run: func(ctx context.Context, cfg *configv1alpha1.SchedulerConfiguration, clients component.Clients) error {
			s, err := scheduler.New(cfg, clients, scheduler.Options{})
			if err != nil {
				return err
			}
			return s.Run(ctx)
		},
	})
}
