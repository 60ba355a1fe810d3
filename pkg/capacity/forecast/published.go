package forecast

import (
	"context"
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
)

// Annotation is the annotation of graft-capacity-annotator's Lease on which
// its leader publishes the forecast's configuration, for graftctl to make
// the same forecast.
const Annotation = "graft.dev/forecast"

// Version is the version of the published form this build writes and reads.
const Version = "v1"

// Published is the forecast's configuration as the annotator applies it.
type Published struct {
	Version string          `json:"version"`
	Window  metav1.Duration `json:"window"`
	Horizon metav1.Duration `json:"horizon"`
	Pools   []PublishedPool `json:"pools,omitempty"`
	// Departures are read from DeparturesAnnotation, published apart: they
	// change every period, the configuration never.
	Departures []Departure `json:"-"`
}

// PublishedPool is a configured pool.
type PublishedPool struct {
	Name         string               `json:"name"`
	SeedSelector metav1.LabelSelector `json:"seedSelector"`
	// ManagedSeedSet is the set the annotator scales for the pool.
	ManagedSeedSet *PublishedSet `json:"managedSeedSet,omitempty"`
}

// PublishedSet is a scaled ManagedSeedSet and its bounds.
type PublishedSet struct {
	Namespace   string `json:"namespace"`
	Name        string `json:"name"`
	MinReplicas int32  `json:"minReplicas"`
	MaxReplicas int32  `json:"maxReplicas"`
	ScaleIn     bool   `json:"scaleIn,omitempty"`
	DryRun      bool   `json:"dryRun,omitempty"`
}

// Encode is the annotation's value.
func (p Published) Encode() (string, error) {
	p.Version = Version
	data, err := json.Marshal(p)
	return string(data), err
}

// Selectors are the pools' selectors for Garden.
func (p Published) Selectors() ([]Selector, error) {
	out := make([]Selector, 0, len(p.Pools))
	for _, pool := range p.Pools {
		sel, err := metav1.LabelSelectorAsSelector(&pool.SeedSelector)
		if err != nil {
			return nil, fmt.Errorf("pool %s: %w", pool.Name, err)
		}
		out = append(out, Selector{Name: pool.Name, Selector: sel})
	}
	return out, nil
}

// Pool returns the published pool of that name.
func (p Published) Pool(name string) (PublishedPool, bool) {
	for _, pool := range p.Pools {
		if pool.Name == name {
			return pool, true
		}
	}
	return PublishedPool{}, false
}

// Decode reads an annotation's value.
func Decode(value string) (Published, error) {
	var p Published
	if err := json.Unmarshal([]byte(value), &p); err != nil {
		return p, fmt.Errorf("annotation %s is not a forecast configuration: %w", Annotation, err)
	}
	if p.Version != Version {
		return p, fmt.Errorf("annotation %s has version %q; this graftctl reads %s", Annotation, p.Version, Version)
	}
	if _, err := p.Selectors(); err != nil {
		return p, fmt.Errorf("annotation %s: %w", Annotation, err)
	}
	return p, nil
}

// Read returns the configuration published on the Lease namespace/name.
func Read(ctx context.Context, leases coordinationv1client.LeasesGetter, namespace, name string) (Published, error) {
	lease, err := leases.Leases(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return Published{}, fmt.Errorf("graft-capacity-annotator's Lease %s/%s could not be read: %w", namespace, name, err)
	}
	value, ok := lease.Annotations[Annotation]
	if !ok {
		return Published{}, fmt.Errorf("graft-capacity-annotator's Lease %s/%s has no %s annotation: its forecast is off, or its leader has not published yet", namespace, name, Annotation)
	}
	p, err := Decode(value)
	if err != nil {
		return p, err
	}
	if value, ok := lease.Annotations[DeparturesAnnotation]; ok {
		if p.Departures, err = DecodeDepartures(value); err != nil {
			return p, err
		}
	}
	return p, nil
}
