package main

import (
	"os"
	"path/filepath"

	"github.com/graft-dev/graft/pkg/controlplane"
)

// gardenerDir is where the local garden keeps gardener-apiserver's
// certificates, kubeconfig, log and pid file.
func gardenerDir(dir string) string { return filepath.Join(dir, "gardener") }

// prepareGardener generates gardener-apiserver's certificates and adds the
// aggregation layer's flags to the control plane's, which kube-apiserver
// needs from its start to proxy Gardener's groups.
func prepareGardener(dir string, opts *controlplane.ControlPlaneOptions) (*controlplane.Gardener, error) {
	// The local garden lets graft-descheduler move control planes live
	// (make demo-gardener shows one): the gate is alpha and off in Gardener.
	g, err := controlplane.PrepareGardener(controlplane.GardenerOptions{Dir: gardenerDir(dir), Detach: true, Log: os.Stdout,
		FeatureGates: []string{"LiveControlPlaneMigration=true"}})
	if err != nil {
		return nil, err
	}
	opts.ExtraAPIServerArgs = append(opts.ExtraAPIServerArgs, g.APIServerArgs()...)
	return g, nil
}

// stopGardener stops a gardener-apiserver the local garden started, if any;
// it goes before kube-apiserver and etcd, which it depends on.
func stopGardener(dir string) error { return controlplane.StopGardenerDir(gardenerDir(dir)) }
