package helper

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

// FormatPlacement is the value of graft.dev/placed-on for a shoot placed on
// seed at the given time, to the second as the API stores times.
func FormatPlacement(seed string, at time.Time) string {
	return seed + "@" + at.UTC().Truncate(time.Second).Format(time.RFC3339)
}

// PlacedOn returns the time graft.dev/placed-on records for the shoot's
// placement on seed. It is false when the annotation is missing, malformed
// or names another seed (the shoot was moved by a write that did not record
// it): then the placement time is not known.
func PlacedOn(shoot *v1alpha1.Shoot, seed string) (time.Time, bool) {
	value, ok := shoot.Annotations[v1alpha1.AnnotationPlacedOn]
	if !ok || len(value) > maxPlacementLength {
		return time.Time{}, false
	}
	name, at, found := strings.Cut(value, "@")
	if !found || name != seed {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339, at)
	if err != nil {
		return time.Time{}, false
	}
	return t, true
}

// maxPlacementLength bounds what PlacedOn parses: a seed name (253) and a time.
const maxPlacementLength = 253 + 1 + 64

// Eviction is one entry of graft.dev/evictions: the shoot was evicted from
// Seed at At for Cause (the plugin and what it acted on, e.g.
// "NoExecuteTaints key:NoExecute").
type Eviction struct {
	Seed  string    `json:"seed"`
	Cause string    `json:"cause"`
	At    time.Time `json:"at"`
	// MAC signs the entry for its shoot with graft-descheduler's key, so
	// that a record a tenant wrote counts for nothing.
	MAC string `json:"mac,omitempty"`
}

// MaxEvictionRecords is how many evictions graft.dev/evictions keeps, the
// newest; older ones are dropped when an eviction is recorded.
const MaxEvictionRecords = 8

// maxEvictionsLength bounds what Evictions parses; a longer value was not
// written by graft-descheduler and counts as none.
const maxEvictionsLength = 4096

// Evictions returns the evictions graft.dev/evictions records, oldest first.
// A missing, oversized or malformed annotation records none.
func Evictions(shoot *v1alpha1.Shoot) []Eviction {
	value, ok := shoot.Annotations[v1alpha1.AnnotationEvictions]
	if !ok || len(value) > maxEvictionsLength {
		return nil
	}
	var out []Eviction
	if err := json.Unmarshal([]byte(value), &out); err != nil {
		return nil
	}
	return out
}

// RecordEviction returns the value of graft.dev/evictions with the eviction
// added to the records kept (those of the shoot the writer trusts): entries
// older than keep before the new one are dropped, and only the newest
// MaxEvictionRecords are kept.
func RecordEviction(records []Eviction, e Eviction, keep time.Duration) string {
	e.At = e.At.UTC().Truncate(time.Second)
	out := make([]Eviction, 0, MaxEvictionRecords)
	for _, old := range records {
		if e.At.Sub(old.At) < keep {
			out = append(out, old)
		}
	}
	out = append(out, e)
	if len(out) > MaxEvictionRecords {
		out = out[len(out)-MaxEvictionRecords:]
	}
	b, err := json.Marshal(out)
	if err != nil {
		// Strings and times only: encoding cannot fail.
		panic(err)
	}
	return string(b)
}
