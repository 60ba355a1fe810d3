package get

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"

	"github.com/graft-dev/graft/pkg/algorithm"
	"github.com/graft-dev/graft/pkg/garden"
)

// now is the clock for the AGE column; tests replace it.
var now = time.Now

var seedColumns = columns(
	[]string{"Ready", "Provider", "Region", "Usage/Allocatable", "Taints", "Age"},
	[]string{"Zones", "Visible", "Capacity", "Last-Operation", "Pools", "Full-In"})

// columns are the column definitions of a table of strings: NAME, the
// object's name, then the given columns, then those only -o wide shows.
func columns(names, wide []string) []metav1.TableColumnDefinition {
	defs := []metav1.TableColumnDefinition{{Name: "Name", Type: "string", Format: "name"}}
	for _, n := range names {
		defs = append(defs, metav1.TableColumnDefinition{Name: n, Type: "string"})
	}
	for _, n := range wide {
		defs = append(defs, metav1.TableColumnDefinition{Name: n, Type: "string", Priority: 1})
	}
	return defs
}

// SeedForecast is what -o wide shows of a seed's forecast: the pools it is
// in and when the first of its region and pools is full.
type SeedForecast struct {
	Pools, FullIn string
}

// SeedTable renders seeds as a table. counts fills USAGE for seeds whose
// status has no usage; nil leaves them as "-". configs are the Gardener
// seeds' configuration objects: a taint on the Seed that its configuration
// lacks is marked PassingMark, for gardenlet removes it when it next starts.
// forecasts fill POOLS and FULL-IN; a seed without one shows "-".
func SeedTable(items []corev1alpha1.Seed, counts map[string]int, configs map[string]*garden.SeedConfig, forecasts map[string]SeedForecast) *metav1.Table {
	table := &metav1.Table{ColumnDefinitions: seedColumns}
	for i := range items {
		seed := &items[i]
		usage := "-"
		if q, ok := seed.Status.Usage[corev1alpha1.ResourceShoots]; ok {
			usage = q.String()
		} else if counts != nil {
			usage = strconv.Itoa(counts[seed.Name])
		}
		allocatable := "-"
		if q, ok := seed.Status.Allocatable[corev1alpha1.ResourceShoots]; ok {
			allocatable = q.String()
		}
		capacity := "<none>"
		if q, ok := seed.Status.Capacity[corev1alpha1.ResourceShoots]; ok {
			capacity = q.String()
		}
		fc, ok := forecasts[seed.Name]
		if !ok {
			fc = SeedForecast{Pools: "-", FullIn: "-"}
		}
		zones := "<none>"
		if len(seed.Spec.Provider.Zones) > 0 {
			zones = strings.Join(seed.Spec.Provider.Zones, ",")
		}
		table.Rows = append(table.Rows, metav1.TableRow{
			Cells: []any{
				seed.Name, seedReady(seed), seed.Spec.Provider.Type, seed.Spec.Provider.Region,
				usage + "/" + allocatable, formatTaints(seed.Spec.Taints, configs[seed.Name]), age(seed.CreationTimestamp),
				zones, strconv.FormatBool(helper.SeedVisible(seed)), capacity, lastOperation(seed.Status.LastOperation),
				fc.Pools, fc.FullIn,
			},
			Object: runtime.RawExtension{Object: seed},
		})
	}
	return table
}

// PassingMark follows a taint that lasts only until gardenlet next starts.
const PassingMark = "*"

// formatTaints is the TAINTS cell: kubectl's form, each taint that config
// (when there is one) lacks marked.
func formatTaints(taints []corev1alpha1.SeedTaint, config *garden.SeedConfig) string {
	passing := config.Passing(taints)
	if len(passing) == 0 {
		return helper.FormatTaints(taints, ",")
	}
	parts := make([]string, 0, len(taints))
	for _, t := range taints {
		part := helper.FormatTaint(t)
		if slices.Contains(passing, t) {
			part += PassingMark
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, ",")
}

// seedReady is the READY column: the status of helper.SeedReadiness, the
// health part of the scheduler's usable-seed rule, so that True means the
// scheduler's health checks pass for the seed.
func seedReady(seed *corev1alpha1.Seed) string {
	status, _ := helper.SeedReadiness(seed)
	return string(status)
}

var shootColumns = columns(
	[]string{"Seed", "Provider", "Region", "Purpose", "Status", "Age"},
	[]string{"Status-Seed", "Cloud-Profile", "Tolerations", "Scheduler"})

// ShootTable renders shoots as a table.
func ShootTable(items []corev1alpha1.Shoot) *metav1.Table {
	table := &metav1.Table{ColumnDefinitions: shootColumns}
	for i := range items {
		shoot := &items[i]
		purpose := "<none>"
		if shoot.Spec.Purpose != nil {
			purpose = string(*shoot.Spec.Purpose)
		}
		profile := algorithm.CloudProfileNameOf(shoot)
		table.Rows = append(table.Rows, metav1.TableRow{
			Cells: []any{
				shoot.Name, orNone(shoot.Spec.SeedName), shoot.Spec.Provider.Type, shoot.Spec.Region, purpose,
				ShootStatus(shoot), age(shoot.CreationTimestamp),
				orNone(shoot.Status.SeedName), orNone(&profile),
				helper.FormatTolerations(shoot.Spec.Tolerations, ","), helper.ShootSchedulerName(shoot),
			},
			Object: runtime.RawExtension{Object: shoot},
		})
	}
	return table
}

// ShootStatus is the state of the shoot's last operation, or Pending for a
// shoot that waits for a seed and has no operation yet. A shoot that
// graft-descheduler evicted and that waits for a new seed is Pending too,
// whatever its last operation said before: the eviction (spec.seedName
// cleared, graft.dev/descheduled-from set in the same update) writes no
// lastOperation of its own.
func ShootStatus(shoot *corev1alpha1.Shoot) string {
	if shoot.Spec.SeedName == nil && shoot.Annotations[corev1alpha1.AnnotationDescheduledFrom] != "" {
		return string(corev1alpha1.LastOperationStatePending)
	}
	if op := shoot.Status.LastOperation; op != nil {
		return string(op.State)
	}
	if shoot.Spec.SeedName == nil {
		return string(corev1alpha1.LastOperationStatePending)
	}
	return "<none>"
}

func lastOperation(op *corev1alpha1.LastOperation) string {
	if op == nil {
		return "<none>"
	}
	return fmt.Sprintf("%s %s", op.Type, op.State)
}

func orNone(s *string) string {
	if s == nil || *s == "" {
		return "<none>"
	}
	return *s
}

func age(t metav1.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(now().Sub(t.Time))
}
