package helper

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

func annotated(key, value string) *v1alpha1.Shoot {
	return &v1alpha1.Shoot{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{key: value}}}
}

func TestPlacedOn(t *testing.T) {
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	value := FormatPlacement("seed-a", at.Add(700*time.Millisecond))
	if value != "seed-a@2026-03-01T10:00:00Z" {
		t.Fatalf("FormatPlacement = %q", value)
	}
	if got, ok := PlacedOn(annotated(v1alpha1.AnnotationPlacedOn, value), "seed-a"); !ok || !got.Equal(at) {
		t.Errorf("PlacedOn = %v, %v; want %v", got, ok, at)
	}
	for name, value := range map[string]string{
		"another seed": value,
		"no time":      "seed-b",
		"bad time":     "seed-b@noon",
		"oversized":    "seed-b@" + strings.Repeat("9", 400),
	} {
		if got, ok := PlacedOn(annotated(v1alpha1.AnnotationPlacedOn, value), "seed-b"); ok {
			t.Errorf("%s: PlacedOn = %v, want none", name, got)
		}
	}
	if _, ok := PlacedOn(&v1alpha1.Shoot{}, "seed-a"); ok {
		t.Error("a shoot without the annotation has a placement")
	}
}

func TestRecordEviction(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	shoot := &v1alpha1.Shoot{}
	for i := range MaxEvictionRecords + 2 {
		shoot = annotated(v1alpha1.AnnotationEvictions, RecordEviction(Evictions(shoot), Eviction{Seed: "a", Cause: "c", At: t0.Add(time.Duration(i) * time.Minute)}, time.Hour))
	}
	got := Evictions(shoot)
	if len(got) != MaxEvictionRecords || !got[0].At.Equal(t0.Add(2*time.Minute)) || !got[len(got)-1].At.Equal(t0.Add(9*time.Minute)) {
		t.Fatalf("records = %+v, want the newest %d", got, MaxEvictionRecords)
	}
	// Records older than keep before the new one are dropped.
	next := annotated(v1alpha1.AnnotationEvictions, RecordEviction(Evictions(shoot), Eviction{Seed: "b", Cause: "c", At: t0.Add(15 * time.Minute)}, 10*time.Minute))
	if got := Evictions(next); len(got) != 5 || !got[0].At.Equal(t0.Add(6*time.Minute)) || got[4].Seed != "b" {
		t.Errorf("records = %+v", got)
	}
	for name, value := range map[string]string{"malformed": "{", "oversized": "[" + strings.Repeat(" ", 5000) + "]"} {
		if got := Evictions(annotated(v1alpha1.AnnotationEvictions, value)); got != nil {
			t.Errorf("%s: records = %+v, want none", name, got)
		}
	}
}
