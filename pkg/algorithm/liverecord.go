package algorithm

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

// LiveRecordAnnotation is the annotation of graft-descheduler's Lease on
// which its leader keeps what it learnt of live migrations (LiveRecord): a
// fallback stops live timing for its gardenlet version pair until
// liveMigrationGardenletVersions changes, across restarts and failovers; a
// live intent written by one leader is judged by the next; and graftctl's
// plans time moves by the same evidence.
const LiveRecordAnnotation = "descheduler.graft.dev/live-migration"

// MaxLiveRecordEntries bounds each list of the record, so that the Lease
// stays small whatever the seeds report as their gardenlet versions.
const MaxLiveRecordEntries = 256

// LiveRecord is LiveRecordAnnotation's value, as JSON.
type LiveRecord struct {
	// Declared is liveMigrationGardenletVersions as the publishing leader
	// applied it: the fallbacks hold only while it is unchanged.
	Declared []string `json:"declared"`
	// Observed are the gardenlet versions seen running the live flow.
	Observed []string `json:"observed,omitempty"`
	// FellBack are the version pairs (LivePair) whose live intent ended in
	// a classic migration.
	FellBack []string `json:"fellBack,omitempty"`
	// Pending are the live intents written and not yet answered.
	Pending []LiveRecordWrite `json:"pending,omitempty"`
}

// LiveRecordWrite is a live intent waiting for its gardenlet's answer.
type LiveRecordWrite struct {
	// Shoot is the shoot's namespace/name, UID its UID.
	Shoot string    `json:"shoot"`
	UID   types.UID `json:"uid"`
	// From and To are the gardenlet versions of the seeds it leaves and
	// goes to; Target is the seed it goes to.
	From   string `json:"from"`
	To     string `json:"to"`
	Target string `json:"target"`
	// Before is the shoot's last operation when the intent was written
	// (type, state and time: what LiveOutcome compares).
	Before *v1alpha1.LastOperation `json:"before,omitempty"`
}

// DecodeLiveRecord reads LiveRecordAnnotation's value.
func DecodeLiveRecord(value string) (LiveRecord, error) {
	var r LiveRecord
	if err := json.Unmarshal([]byte(value), &r); err != nil {
		return LiveRecord{}, fmt.Errorf("annotation %s is not graft-descheduler's live migration record: %w", LiveRecordAnnotation, err)
	}
	return r, nil
}

// Flow is the evidence the record gives under a configuration declaring
// declared: the versions seen live always, the fallbacks only while the
// declaration is the one they were recorded under.
func (r LiveRecord) Flow(declared []string) LiveFlow {
	f := LiveFlow{Declared: sets.New(declared...), Observed: sets.New(r.Observed...), FellBack: sets.New[string]()}
	if r.SameDeclaration(declared) {
		f.FellBack.Insert(r.FellBack...)
	}
	return f
}

// SameDeclaration tells whether declared names the versions the record was
// published under.
func (r LiveRecord) SameDeclaration(declared []string) bool {
	return sets.New(r.Declared...).Equal(sets.New(declared...))
}
