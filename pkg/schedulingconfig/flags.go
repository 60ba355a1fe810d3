package schedulingconfig

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/util/validation"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/algorithm"
)

// DefaultLeaseName is graft-scheduler's Lease name by default (the chart's
// config.leaderElection.resourceName); its namespace is garden.
const DefaultLeaseName = "graft-scheduler"

// FromFlags translates graftctl's --strategy and --score-weight values into
// the algorithm's Config and validates it.
func FromFlags(strategy string, weights map[string]int) (algorithm.Config, error) {
	c := algorithm.Config{Strategy: algorithm.Strategy(strategy)}
	var errs []error
	if len(weights) > 0 {
		c.ScoreWeights = map[algorithm.ScorePlugin]int32{}
		for name, w := range weights {
			if w > math.MaxInt32 {
				errs = append(errs, fmt.Errorf("score plugin %s: weight %d is too large", name, w))
				continue
			}
			c.ScoreWeights[algorithm.ScorePlugin(name)] = int32(max(w, math.MinInt32))
		}
	}
	if err := c.Validate(); err != nil {
		errs = append(errs, err)
	}
	return c, errors.Join(errs...)
}

// Flags are the flags of the graftctl commands that explain the scheduler's
// decisions against the live garden: the configuration is the one the
// scheduler publishes on its Lease unless --strategy or --score-weight is
// given, which then replace it as a whole.
type Flags struct {
	// Strategy and ScoreWeights override the published configuration.
	Strategy     string
	ScoreWeights map[string]int
	// LeaseNamespace and LeaseName name graft-scheduler's leader election Lease.
	LeaseNamespace, LeaseName string
}

// NewFlags returns the flags with their defaults.
func NewFlags() *Flags {
	return &Flags{LeaseNamespace: corev1alpha1.GardenNamespace, LeaseName: DefaultLeaseName}
}

// AddFlags adds --strategy, --score-weight, --scheduler-lease-namespace and
// --scheduler-lease-name.
func (f *Flags) AddFlags(flags *pflag.FlagSet) {
	flags.StringVar(&f.Strategy, "strategy", f.Strategy,
		"Scheduling strategy to explain with (SameRegion or MinimalDistance) instead of the configuration graft-scheduler publishes on its Lease; without --score-weight, no score weights.")
	flags.StringToIntVar(&f.ScoreWeights, "score-weight", f.ScoreWeights,
		"Score plugin weights to explain with (MinimalDistance, LeastAllocated, PreferNoSchedule), e.g. LeastAllocated=2, instead of the configuration graft-scheduler publishes; without --strategy, SameRegion.")
	flags.StringVar(&f.LeaseNamespace, "scheduler-lease-namespace", f.LeaseNamespace,
		"Namespace of graft-scheduler's leader-election Lease (its leaderElection.resourceNamespace), which carries the scheduling configuration it applies.")
	flags.StringVar(&f.LeaseName, "scheduler-lease-name", f.LeaseName,
		"Name of graft-scheduler's leader-election Lease (its leaderElection.resourceName).")
}

// Overridden tells whether the flags replace the published configuration.
func (f *Flags) Overridden() bool { return f.Strategy != "" || len(f.ScoreWeights) > 0 }

// Validate checks the flags.
func (f *Flags) Validate() error {
	var errs []error
	if f.Overridden() {
		if _, err := FromFlags(f.Strategy, f.ScoreWeights); err != nil {
			errs = append(errs, err)
		}
	}
	if msgs := validation.IsDNS1123Label(f.LeaseNamespace); len(msgs) > 0 {
		errs = append(errs, fmt.Errorf("invalid --scheduler-lease-namespace %q: %v", f.LeaseNamespace, msgs))
	}
	if msgs := validation.IsDNS1123Subdomain(f.LeaseName); len(msgs) > 0 {
		errs = append(errs, fmt.Errorf("invalid --scheduler-lease-name %q: %v", f.LeaseName, msgs))
	}
	return errors.Join(errs...)
}

// Choice is the configuration a command explains with, and where it came from.
type Choice struct {
	Config algorithm.Config
	// Source is "from flags", "from Lease NS/NAME" or "defaults: WHY".
	Source string
	// Warning, when set, says why the published configuration could not be
	// used; the command prints it as a warning.
	Warning string
	// SchedulerName is the spec.schedulerName the publishing scheduler
	// answers to; empty when not known (flags, defaults, an older scheduler).
	SchedulerName string
}

// String is the line the commands print, for example
// "Scheduling configuration: MinimalDistance, score weights LeastAllocated=3 (from Lease garden/graft-scheduler)".
func (c Choice) String() string {
	return fmt.Sprintf("Scheduling configuration: %s (%s)", Describe(c.Config), c.Source)
}

// Choose returns the flags' configuration when they override it, and
// otherwise the one published on the Lease; when that cannot be read or is
// invalid, the defaults (the reference behaviour with SameRegion) with a
// warning. It never fails: an explanation with the defaults, clearly
// labelled, is more use than none.
func (f *Flags) Choose(ctx context.Context, leases coordinationv1client.LeasesGetter) Choice {
	if f.Overridden() {
		c, _ := FromFlags(f.Strategy, f.ScoreWeights) // checked by Validate
		return Choice{Config: c, Source: "from flags"}
	}
	ref := "Lease " + f.LeaseNamespace + "/" + f.LeaseName
	defaults := func(why string) Choice {
		return Choice{
			Config:  algorithm.Config{Strategy: algorithm.StrategySameRegion},
			Source:  "defaults: " + why,
			Warning: "explaining with the default scheduling configuration, which may not be graft-scheduler's: " + why,
		}
	}
	p, err := Read(ctx, leases, f.LeaseNamespace, f.LeaseName, "graftctl")
	if err != nil {
		return defaults(err.Error())
	}
	return Choice{Config: p.Config(), Source: "from " + ref, SchedulerName: p.SchedulerName}
}
