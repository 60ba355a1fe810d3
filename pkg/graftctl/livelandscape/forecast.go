package livelandscape

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/pflag"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"

	"github.com/graft-dev/graft/pkg/capacity/forecast"
)

// ForecastFlags name graft-capacity-annotator's Lease, on which it publishes
// the forecast's window, horizon and pools.
type ForecastFlags struct {
	LeaseNamespace, LeaseName string
}

// NewForecastFlags returns the flags at their defaults, the chart's Lease.
func NewForecastFlags() *ForecastFlags {
	return &ForecastFlags{LeaseNamespace: corev1alpha1.GardenNamespace, LeaseName: configv1alpha1.DefaultCapacityAnnotatorLeaseName}
}

// AddFlags adds --capacity-annotator-lease-namespace and -name.
func (f *ForecastFlags) AddFlags(flags *pflag.FlagSet) {
	flags.StringVar(&f.LeaseNamespace, "capacity-annotator-lease-namespace", f.LeaseNamespace,
		"Namespace of graft-capacity-annotator's leader-election Lease, on which it publishes the forecast's window, horizon and pools.")
	flags.StringVar(&f.LeaseName, "capacity-annotator-lease-name", f.LeaseName, "Name of graft-capacity-annotator's leader-election Lease.")
}

// Read returns the published forecast configuration or, when none can be
// read, the defaults (regions only) and a warning why.
func (f *ForecastFlags) Read(ctx context.Context, leases coordinationv1client.LeasesGetter) (forecast.Published, string) {
	p, err := forecast.Read(ctx, leases, f.LeaseNamespace, f.LeaseName)
	if err != nil {
		return forecast.Published{
			Window:  metav1.Duration{Duration: configv1alpha1.DefaultForecastWindow},
			Horizon: metav1.Duration{Duration: configv1alpha1.DefaultForecastHorizon},
		}, fmt.Sprintf("%v; forecasting the regions alone with the default window %s", err, duration.HumanDuration(configv1alpha1.DefaultForecastWindow))
	}
	return p, ""
}

// Forecast makes the forecast of the landscape (forecast.Make) with the
// published configuration, for shoots waiting for schedulerName.
func (l *Landscape) Forecast(now time.Time, p forecast.Published, schedulerName string) ([]forecast.Summary, error) {
	pools, err := p.Selectors()
	if err != nil {
		return nil, err
	}
	summaries, _ := forecast.Make(forecast.Garden{Now: now, Window: p.Window.Duration, Seeds: l.Seeds, Shoots: l.Shoots,
		Pools: pools, SchedulerName: schedulerName, Inputs: l.Inputs, Departures: p.Departures})
	return summaries, nil
}

// FullIn says when a forecast's pool is full: "now", "never" or a duration.
func FullIn(s forecast.Summary) string {
	switch {
	case s.Full:
		return "now"
	case s.Never:
		return "never"
	}
	return duration.HumanDuration(s.FullIn)
}
