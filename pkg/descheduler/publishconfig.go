package descheduler

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"k8s.io/klog/v2"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/pkg/component/leadership"
)

// ConfigurationAnnotation is the key of the annotation on graft-descheduler's
// leader election Lease that holds the configuration its leader moves shoots
// by: graftctl's plans are computed with it (ComputePlan).
const ConfigurationAnnotation = "descheduler.graft.dev/configuration"

// EncodeConfiguration is the annotation's value for a configuration: its
// rules of moves alone, as JSON of its kind, without the connection, leader
// election, server and logging settings, which say nothing of a move.
func EncodeConfiguration(cfg *configv1alpha1.DeschedulerConfiguration) (string, error) {
	out := cfg.DeepCopy()
	out.APIVersion = configv1alpha1.SchemeGroupVersion.String()
	out.Kind = "DeschedulerConfiguration"
	b, err := json.Marshal(out)
	if err != nil {
		return "", fmt.Errorf("encoding the configuration: %w", err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return "", fmt.Errorf("encoding the configuration: %w", err)
	}
	for _, common := range []string{"clientConnection", "leaderElection", "server", "logging"} {
		delete(fields, common)
	}
	if b, err = json.Marshal(fields); err != nil {
		return "", fmt.Errorf("encoding the configuration: %w", err)
	}
	return string(b), nil
}

// DecodeConfiguration reads the annotation's value: defaulted and
// validated, fields this build does not know ignored (a newer descheduler may
// publish them), or why it cannot be used.
func DecodeConfiguration(value string) (*configv1alpha1.DeschedulerConfiguration, error) {
	var cfg configv1alpha1.DeschedulerConfiguration
	if err := json.Unmarshal([]byte(value), &cfg); err != nil {
		return nil, fmt.Errorf("not the JSON of a DeschedulerConfiguration: %w", err)
	}
	if cfg.APIVersion != configv1alpha1.SchemeGroupVersion.String() || cfg.Kind != "DeschedulerConfiguration" {
		return nil, fmt.Errorf("a %s %s, this build reads %s DeschedulerConfiguration", cfg.APIVersion, cfg.Kind, configv1alpha1.SchemeGroupVersion)
	}
	cfg.Default()
	if errs := cfg.Validate(); len(errs) > 0 {
		return nil, fmt.Errorf("invalid: %w", errs.ToAggregate())
	}
	if _, err := DefaultRegistry().Build(cfg.Plugins); err != nil {
		return nil, err
	}
	return &cfg, nil
}

// publishConfiguration writes the configuration onto the Lease while this
// replica leads (leadership.Publisher: fenced by the Lease it holds). Without
// leader election there is no Lease, and nothing is published.
func (d *Descheduler) publishConfiguration(ctx context.Context) {
	p := d.liveLease()
	if p == nil {
		return
	}
	value, err := EncodeConfiguration(d.cfg)
	if err != nil {
		klog.FromContext(ctx).Error(err, "Not publishing the configuration")
		return
	}
	p.Annotation, p.What, p.Value = ConfigurationAnnotation, "the configuration", value
	if err := p.Run(ctx); err != nil && !errors.Is(err, leadership.ErrNotHolder) && ctx.Err() == nil {
		klog.FromContext(ctx).Error(err, "Could not publish the configuration")
	}
}
