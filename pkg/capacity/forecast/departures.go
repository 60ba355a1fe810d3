package forecast

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// DeparturesAnnotation is the annotation of graft-capacity-annotator's Lease
// on which its leader publishes the departures it saw within the window:
// the next leader starts from them, and graftctl makes the same forecast.
const DeparturesAnnotation = "graft.dev/forecast-departures"

// MaxPublishedDepartures bounds the departures published, the newest kept,
// so that the Lease stays small (about 130 bytes each). Beyond it the older
// departures are not subtracted: the forecast then errs as it did before
// departures counted, towards more growth.
const MaxPublishedDepartures = 500

// Departure is a placed shoot that was deleted. Arrivals are the shoots that
// exist and were created within the window; a shoot created before the
// window and deleted within it is their counterpart: the pool's net growth
// over the window is the one minus the other. Without it, a tenant that
// deletes and recreates the same shoots reads as growth (and scales a pool
// for nothing).
type Departure struct {
	// UID tells apart shoots of one seed created and deleted in the same
	// seconds (a tenant's script); a departure recalled from the Lease and
	// seen again by the informer is the same.
	UID     types.UID `json:"uid,omitempty"`
	Seed    string    `json:"seed"`
	Created time.Time `json:"created"`
	Deleted time.Time `json:"deleted"`
}

// Departures keeps the departures seen, for one window. Safe for concurrent
// use: the shoot informer adds, the forecast reads.
type Departures struct {
	mu   sync.Mutex
	list []Departure
}

// Add records a departure, once.
func (d *Departures) Add(dep Departure) {
	if dep.Seed == "" {
		return
	}
	dep.Created, dep.Deleted = dep.Created.UTC().Truncate(time.Second), dep.Deleted.UTC().Truncate(time.Second)
	d.mu.Lock()
	defer d.mu.Unlock()
	if !slices.Contains(d.list, dep) {
		d.list = append(d.list, dep)
	}
}

// Within drops the departures older than window before now and returns the
// others, oldest first.
func (d *Departures) Within(now time.Time, window time.Duration) []Departure {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.list = slices.DeleteFunc(d.list, func(dep Departure) bool { return now.Sub(dep.Deleted) >= window })
	slices.SortFunc(d.list, func(a, b Departure) int { return a.Deleted.Compare(b.Deleted) })
	return slices.Clone(d.list)
}

// EncodeDepartures is the annotation's value: the newest
// MaxPublishedDepartures of list (oldest first).
func EncodeDepartures(list []Departure) (string, error) {
	if len(list) > MaxPublishedDepartures {
		list = list[len(list)-MaxPublishedDepartures:]
	}
	if list == nil {
		list = []Departure{}
	}
	data, err := json.Marshal(list)
	return string(data), err
}

// DecodeDepartures reads the annotation's value.
func DecodeDepartures(value string) ([]Departure, error) {
	var out []Departure
	if err := json.Unmarshal([]byte(value), &out); err != nil {
		return nil, fmt.Errorf("annotation %s is not a list of departures: %w", DeparturesAnnotation, err)
	}
	return out, nil
}
