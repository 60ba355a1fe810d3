package get

import (
	"context"
	"fmt"
	"strings"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"

	"github.com/graft-dev/graft/pkg/capacity/forecast"
	"github.com/graft-dev/graft/pkg/graftctl/livelandscape"
	"github.com/graft-dev/graft/pkg/schedulingconfig"
)

// seedForecasts makes the forecast as graft-capacity-annotator does, with
// the window and pools it publishes and graft-scheduler's published
// configuration, and gives each seed its pools and the first time one of
// its region and pools is full. What cannot be read is a warning, never a
// failure: the table is still printed.
func (o *Options) seedForecasts(ctx context.Context, items []corev1alpha1.Seed) map[string]SeedForecast {
	if o.kube == nil {
		fmt.Fprintln(o.ErrOut, "Warning: no Kubernetes client: POOLS and FULL-IN are not shown")
		return nil
	}
	choice := schedulingconfig.NewFlags().Choose(ctx, o.kube.CoordinationV1())
	l, err := livelandscape.Load(ctx, o.client, o.kube, choice.Config, o.RegionConfigNamespace)
	if err != nil {
		fmt.Fprintf(o.ErrOut, "Warning: POOLS and FULL-IN are not shown: %v\n", err)
		return nil
	}
	published, warning := o.Forecast.Read(ctx, o.kube.CoordinationV1())
	if warning != "" {
		fmt.Fprintf(o.ErrOut, "Warning: %s\n", warning)
	}
	summaries, err := l.Forecast(now(), published, choice.SchedulerName)
	if err != nil {
		fmt.Fprintf(o.ErrOut, "Warning: POOLS and FULL-IN are not shown: %v\n", err)
		return nil
	}
	byPool := make(map[forecast.Pool]forecast.Summary, len(summaries))
	for _, s := range summaries {
		byPool[s.Pool] = s
	}
	pools, _ := published.Selectors() // Forecast checked them
	out := make(map[string]SeedForecast, len(items))
	for i := range items {
		var names []string
		var first *forecast.Summary
		for _, p := range forecast.PoolsOf(&items[i], pools) {
			if p.Kind == forecast.KindPool {
				names = append(names, p.Name)
			}
			// A pool, listed after the region, wins a tie: it is the
			// more specific answer.
			s, ok := byPool[p]
			if ok && (first == nil || !sooner(*first, &s)) {
				first = &s
			}
		}
		fc := SeedForecast{Pools: "<none>", FullIn: "never"}
		if len(names) > 0 {
			fc.Pools = strings.Join(names, ",")
		}
		if first != nil && !first.Never {
			fc.FullIn = fmt.Sprintf("%s (%s)", livelandscape.FullIn(*first), first.Name)
		}
		out[items[i].Name] = fc
	}
	return out
}

// sooner reports whether s is full before first (nil: never).
func sooner(s forecast.Summary, first *forecast.Summary) bool {
	switch {
	case s.Never:
		return false
	case first == nil || first.Never:
		return true
	case first.Full:
		return false
	case s.Full:
		return true
	}
	return s.FullIn < first.FullIn
}
