package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/controlplane"
	"github.com/graft-dev/graft/pkg/coretest"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

const usage = `usage (KUBECONFIG names the garden):
  demo apply FILE                    create or update the objects of a graft landscape file
  demo gardener-landscape            create the Gardener landscape of make demo-gardener
  demo gardener-shoot NAME REGION    create a shoot for graft-scheduler in that landscape
  demo gardener-shoot NAME REGION IN HA
                                     the same with a maintenance window of an hour from IN
                                     from now (a duration, negative: open now) and, with HA
                                     true, a highly available control plane
  demo wait-shoot NAME bound [SEED]  wait until the landscape's shoot is bound (to SEED, if given)
  demo wait-shoot NAME running       wait until its control plane runs on its seed (status.seedName)
  demo wait-shoot NAME pending       wait until it waits for a seed (lastOperation Create/Pending)
  demo wait-event NAME REASON        wait for an Event of that reason about the landscape's shoot
  demo table shoots|seeds            print Gardener's objects as gardener-apiserver's table shows them
  demo gardenlet                     stand in for gardenlet: report control planes on their new seeds, until stopped
  demo watch-migrations SEED         print the migrations off SEED until none of the landscape's shoots is on it
  demo live-migrations               print how each shoot's control plane last moved: live, classic or not yet`

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "demo: %v\n", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	want := map[string]int{"apply": 1, "gardener-landscape": 0, "gardener-shoot": 2, "wait-shoot": 2, "wait-event": 2, "table": 1, "gardenlet": 0, "watch-migrations": 1, "live-migrations": 0}
	if len(args) == 0 {
		args = []string{""}
	}
	n, ok := want[args[0]]
	if args[0] == "wait-shoot" && len(args) == 4 {
		n++ // the optional seed
	}
	if args[0] == "gardener-shoot" && len(args) == 5 {
		n += 2 // the window and HA
	}
	if !ok || n != len(args)-1 {
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", os.Getenv("KUBECONFIG"))
	if err != nil {
		return fmt.Errorf("loading KUBECONFIG: %w", err)
	}
	if args[0] == "gardenlet" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		return gardenlet(ctx, cfg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	switch args[0] {
	case "watch-migrations":
		return watchMigrations(ctx, cfg, args[1])
	case "live-migrations":
		return liveMigrations(ctx, cfg)
	case "apply":
		return apply(ctx, cfg, args[1])
	case "gardener-landscape":
		return gardenerLandscape(ctx, cfg)
	case "gardener-shoot":
		if len(args) == 5 {
			in, err := time.ParseDuration(args[3])
			if err != nil {
				return fmt.Errorf("the window's start: %w", err)
			}
			return gardenerShootFor(ctx, cfg, args[1], args[2], func(s *coretest.ShootWrapper) {
				begin := time.Now().UTC().Add(in)
				s.MaintenanceWindow(begin.Format("150405")+"+0000", begin.Add(time.Hour).Format("150405")+"+0000")
				if args[4] == "true" {
					s.FailureTolerance(corev1alpha1.FailureToleranceTypeNode)
				}
			})
		}
		return gardenerShootFor(ctx, cfg, args[1], args[2])
	case "wait-shoot":
		return waitShoot(ctx, cfg, args[1], args[2], strings.Join(args[3:], ""))
	case "wait-event":
		return waitEvent(ctx, cfg, args[1], args[2])
	default: // table
		return printTable(ctx, cfg, args[1])
	}
}

func apply(ctx context.Context, cfg *rest.Config, path string) error {
	objs, err := controlplane.DecodeFile(path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := controlplane.Apply(ctx, cfg, objs); err != nil {
		return err
	}
	fmt.Printf("applied %d objects from %s\n", len(objs), path)
	return nil
}
