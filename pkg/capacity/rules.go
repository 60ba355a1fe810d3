package capacity

import (
	"encoding/json"
	"fmt"
	"maps"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

// Rules decide capacity and allocatable for seeds. Build them once with
// NewRules; they are read-only afterwards and safe for concurrent use.
type Rules struct {
	capacity, reserved corev1.ResourceList
	overrides          []override
	respectSeed        bool
	fieldManager       string
}

type override struct {
	selector           labels.Selector
	capacity, reserved corev1.ResourceList
}

// NewRules prepares the rules of a defaulted, validated configuration.
// fieldManager is the annotator's own field manager: status.capacity owned by
// any other manager counts as published by the seed's agent.
func NewRules(cfg *configv1alpha1.CapacityAnnotatorConfiguration, fieldManager string) (*Rules, error) {
	r := &Rules{
		capacity:     cfg.Capacity.DeepCopy(),
		reserved:     cfg.Reserved.DeepCopy(),
		respectSeed:  cfg.RespectSeedCapacity,
		fieldManager: fieldManager,
	}
	for i, o := range cfg.Overrides {
		sel, err := metav1.LabelSelectorAsSelector(&o.SeedSelector)
		if err != nil {
			return nil, fmt.Errorf("overrides[%d].seedSelector: %w", i, err)
		}
		r.overrides = append(r.overrides, override{selector: sel, capacity: o.Capacity.DeepCopy(), reserved: o.Reserved.DeepCopy()})
	}
	return r, nil
}

// capacitySource tells where a seed's capacity came from.
type capacitySource string

const (
	// sourceDefault is the configuration's capacity and reserved.
	sourceDefault capacitySource = "default"
	// sourceOverride is an override of the configuration; capacityDecision.Override says which.
	sourceOverride capacitySource = "override"
	// sourceAnnotation is an annotation on the seed.
	sourceAnnotation capacitySource = "annotation"
)

// capacityDecision is the decision for one seed. Capacity and Allocatable hold only the
// resources the annotator should write; a resource missing from them is left
// as the seed has it (published by the seed's agent, or kept at its last good
// value because an annotation is invalid).
type capacityDecision struct {
	Capacity    corev1.ResourceList
	Allocatable corev1.ResourceList
	// Source of the shoots capacity, and Override its index for sourceOverride.
	Source   capacitySource
	Override int
	// Respected lists the resources left alone because another field manager
	// publishes them.
	Respected []corev1.ResourceName
	// Invalid holds one error per unparsable annotation; the resources they
	// concern are left out of Capacity and Allocatable.
	Invalid []error
}

// decide decides capacity and allocatable for seed.
func (r *Rules) decide(seed *v1alpha1.Seed) capacityDecision {
	res := capacityDecision{Source: sourceDefault, Override: -1}
	capacity := maps.Clone(r.capacity)
	reserved := maps.Clone(r.reserved)
	if capacity == nil {
		capacity = corev1.ResourceList{}
	}
	if reserved == nil {
		reserved = corev1.ResourceList{}
	}
	set := labels.Set(seed.Labels)
	for i, o := range r.overrides {
		if !o.selector.Matches(set) {
			continue
		}
		maps.Copy(capacity, o.capacity)
		maps.Copy(reserved, o.reserved)
		res.Source, res.Override = sourceOverride, i
		break
	}

	invalid := map[corev1.ResourceName]bool{}
	for _, a := range []struct {
		key  string
		into corev1.ResourceList
	}{
		{v1alpha1.AnnotationCapacityShoots, capacity},
		{v1alpha1.AnnotationReservedShoots, reserved},
	} {
		value, ok := seed.Annotations[a.key]
		if !ok {
			continue
		}
		q, err := parseShoots(value)
		if err != nil {
			res.Invalid = append(res.Invalid, fmt.Errorf("annotation %s=%q: %w", a.key, value, err))
			invalid[v1alpha1.ResourceShoots] = true
			continue
		}
		a.into[v1alpha1.ResourceShoots] = q
		res.Source, res.Override = sourceAnnotation, -1
	}

	res.Capacity = corev1.ResourceList{}
	res.Allocatable = corev1.ResourceList{}
	for name, c := range capacity {
		if invalid[name] {
			continue
		}
		if r.respectSeed && publishedByOther(seed, name, r.fieldManager) {
			res.Respected = append(res.Respected, name)
			continue
		}
		res.Capacity[name] = c
		res.Allocatable[name] = allocatableOf(c, reserved[name])
	}
	return res
}

// allocatableOf is capacity minus reserved, never negative.
func allocatableOf(capacity, reserved resource.Quantity) resource.Quantity {
	a := capacity.DeepCopy()
	a.Sub(reserved)
	if a.Sign() < 0 {
		return *resource.NewQuantity(0, capacity.Format)
	}
	return a
}

// parseShoots parses a number of shoots from an annotation value: a
// non-negative whole number.
func parseShoots(value string) (resource.Quantity, error) {
	q, err := resource.ParseQuantity(value)
	if err != nil {
		return resource.Quantity{}, fmt.Errorf("not a quantity: %w", err)
	}
	if q.Sign() < 0 {
		return resource.Quantity{}, fmt.Errorf("must not be negative")
	}
	if q.MilliValue()%1000 != 0 {
		return resource.Quantity{}, fmt.Errorf("must be a whole number of shoots")
	}
	return *resource.NewQuantity(q.Value(), resource.DecimalSI), nil
}

// publishedByOther tells whether a field manager other than ours owns
// status.capacity.<name> of seed.
func publishedByOther(seed *v1alpha1.Seed, name corev1.ResourceName, ours string) bool {
	if _, ok := seed.Status.Capacity[name]; !ok {
		return false
	}
	for _, mf := range seed.ManagedFields {
		if mf.Manager == ours || mf.FieldsV1 == nil {
			continue
		}
		if ownsStatusCapacity(mf.FieldsV1.Raw, name) {
			return true
		}
	}
	return false
}

// ownsStatusCapacity reads a FieldsV1 set ({"f:status":{"f:capacity":{"f:shoots":{}}}})
// and tells whether it holds status.capacity.<name>.
func ownsStatusCapacity(raw []byte, name corev1.ResourceName) bool {
	var set struct {
		Status struct {
			Capacity map[string]json.RawMessage `json:"f:capacity"`
		} `json:"f:status"`
	}
	if err := json.Unmarshal(raw, &set); err != nil {
		return false
	}
	_, ok := set.Status.Capacity["f:"+string(name)]
	return ok
}
