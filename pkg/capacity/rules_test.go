package capacity

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	configv1alpha1 "github.com/graft-dev/graft/apis/config/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/coretest"
)

const manager = "graft-capacity-annotator"

func rules(t *testing.T, mutate func(*configv1alpha1.CapacityAnnotatorConfiguration)) *Rules {
	t.Helper()
	r, err := NewRules(testConfig(t, mutate), manager)
	if err != nil {
		t.Fatalf("NewRules: %v", err)
	}
	return r
}

func shootsIn(l corev1.ResourceList) string {
	q, ok := l[v1alpha1.ResourceShoots]
	if !ok {
		return "<unset>"
	}
	return q.String()
}

func shootList(n string) corev1.ResourceList {
	return corev1.ResourceList{v1alpha1.ResourceShoots: resource.MustParse(n)}
}

func TestRulesDecide(t *testing.T) {
	withOverrides := func(c *configv1alpha1.CapacityAnnotatorConfiguration) {
		c.Reserved = shootList("10")
		c.Overrides = []configv1alpha1.CapacityOverride{
			{SeedSelector: metav1.LabelSelector{MatchLabels: map[string]string{"size": "small"}}, Capacity: shootList("20")},
			{SeedSelector: metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "size", Operator: metav1.LabelSelectorOpExists}}}, Capacity: shootList("500"), Reserved: shootList("0")},
		}
	}
	for _, tc := range []struct {
		name                  string
		mutate                func(*configv1alpha1.CapacityAnnotatorConfiguration)
		labels, annotations   map[string]string
		capacity, allocatable string
		source                capacitySource
		override              int
		invalid               string
	}{
		{name: "defaults", capacity: "200", allocatable: "200", source: sourceDefault, override: -1},
		{name: "default reserved", mutate: func(c *configv1alpha1.CapacityAnnotatorConfiguration) { c.Reserved = shootList("15") },
			capacity: "200", allocatable: "185", source: sourceDefault, override: -1},
		{name: "no override matches", mutate: withOverrides, labels: map[string]string{"other": "x"},
			capacity: "200", allocatable: "190", source: sourceDefault, override: -1},
		{name: "first match wins and keeps default reserved", mutate: withOverrides, labels: map[string]string{"size": "small"},
			capacity: "20", allocatable: "10", source: sourceOverride, override: 0},
		{name: "second override", mutate: withOverrides, labels: map[string]string{"size": "large"},
			capacity: "500", allocatable: "500", source: sourceOverride, override: 1},
		{name: "annotation beats override", mutate: withOverrides, labels: map[string]string{"size": "small"},
			annotations: map[string]string{v1alpha1.AnnotationCapacityShoots: "42"},
			capacity:    "42", allocatable: "32", source: sourceAnnotation, override: -1},
		{name: "both annotations", annotations: map[string]string{v1alpha1.AnnotationCapacityShoots: "42", v1alpha1.AnnotationReservedShoots: "2"},
			capacity: "42", allocatable: "40", source: sourceAnnotation, override: -1},
		{name: "reserved above capacity gives zero", annotations: map[string]string{v1alpha1.AnnotationReservedShoots: "300"},
			capacity: "200", allocatable: "0", source: sourceAnnotation, override: -1},
		{name: "unparsable capacity", annotations: map[string]string{v1alpha1.AnnotationCapacityShoots: "lots"},
			capacity: "<unset>", allocatable: "<unset>", source: sourceDefault, override: -1, invalid: "not a quantity"},
		{name: "negative reserved", annotations: map[string]string{v1alpha1.AnnotationReservedShoots: "-1"},
			capacity: "<unset>", allocatable: "<unset>", source: sourceDefault, override: -1, invalid: "must not be negative"},
		{name: "fractional capacity", annotations: map[string]string{v1alpha1.AnnotationCapacityShoots: "1.5"},
			capacity: "<unset>", allocatable: "<unset>", source: sourceDefault, override: -1, invalid: "whole number"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := rules(t, tc.mutate).decide(coretest.MakeSeed("s").Labels(tc.labels).Annotations(tc.annotations).Obj())
			if shootsIn(got.Capacity) != tc.capacity || shootsIn(got.Allocatable) != tc.allocatable {
				t.Errorf("capacity %s allocatable %s, want %s and %s", shootsIn(got.Capacity), shootsIn(got.Allocatable), tc.capacity, tc.allocatable)
			}
			if got.Source != tc.source || got.Override != tc.override {
				t.Errorf("source %s/%d, want %s/%d", got.Source, got.Override, tc.source, tc.override)
			}
			switch {
			case tc.invalid == "" && len(got.Invalid) > 0:
				t.Errorf("unexpected errors: %v", got.Invalid)
			case tc.invalid != "" && (len(got.Invalid) != 1 || !strings.Contains(got.Invalid[0].Error(), tc.invalid)):
				t.Errorf("errors %v, want one mentioning %q", got.Invalid, tc.invalid)
			}
		})
	}
}

func TestRulesDecideRespectsCapacityPublishedByTheSeed(t *testing.T) {
	agentOwned := coretest.MakeSeed("s").Obj()
	agentOwned.Status.Capacity = shootList("80")
	agentOwned.ManagedFields = []metav1.ManagedFieldsEntry{
		{Manager: manager, Subresource: "status", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:status":{"f:usage":{"f:shoots":{}}}}`)}},
		{Manager: "gardenlet", Subresource: "status", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:status":{"f:capacity":{".":{},"f:shoots":{}},"f:allocatable":{"f:shoots":{}}}}`)}},
	}
	ownOnly := coretest.MakeSeed("s").Obj()
	ownOnly.Status.Capacity = shootList("200")
	ownOnly.ManagedFields = []metav1.ManagedFieldsEntry{
		{Manager: manager, Subresource: "status", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:status":{"f:capacity":{"f:shoots":{}}}}`)}},
	}

	respect := rules(t, func(c *configv1alpha1.CapacityAnnotatorConfiguration) { c.RespectSeedCapacity = true })
	if got := respect.decide(agentOwned); len(got.Capacity) != 0 || len(got.Allocatable) != 0 || len(got.Respected) != 1 {
		t.Errorf("agent-published capacity not respected: %+v", got)
	}
	if got := respect.decide(ownOnly); shootsIn(got.Capacity) != "200" || len(got.Respected) != 0 {
		t.Errorf("own capacity treated as the agent's: %+v", got)
	}
	if got := rules(t, nil).decide(agentOwned); shootsIn(got.Capacity) != "200" {
		t.Errorf("without respectSeedCapacity the annotator must write capacity: %+v", got)
	}
}
