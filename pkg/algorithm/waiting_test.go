package algorithm

import (
	"errors"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

// TestReserveForWaiting: evicted shoots take free slots before new ones,
// each group in name order; bound shoots, shoots being deleted and shoots
// whose inputs fail take nothing.
func TestReserveForWaiting(t *testing.T) {
	evicted := func(s *v1alpha1.Shoot) {
		s.Annotations = map[string]string{v1alpha1.AnnotationDescheduledFrom: "old"}
	}
	deleting := func(s *v1alpha1.Shoot) { s.DeletionTimestamp = &metav1.Time{} }
	bound := newShoot("bound", onSeed("b", "b"))
	snap := snapshotOf([]*v1alpha1.Seed{newSeed("a", allocatable(2)), newSeed("b", allocatable(2))}, bound)
	shoots := []*v1alpha1.Shoot{
		newShoot("a-new"),
		newShoot("z-evicted", evicted),
		newShoot("b-deleting", deleting),
		newShoot("c-no-inputs"),
		newShoot("m-evicted", evicted),
		bound,
	}
	var asked []string
	ReserveForWaiting(snap, shoots, func(s *v1alpha1.Shoot) (Inputs, error) {
		asked = append(asked, s.Name)
		if s.Name == "c-no-inputs" {
			return Inputs{}, errors.New("no cloud profile")
		}
		return Inputs{CloudProfile: cloudProfile("aws")}, nil
	})
	if want := []string{"m-evicted", "z-evicted", "a-new", "c-no-inputs"}; !slices.Equal(asked, want) {
		t.Errorf("placed in order %v, want %v", asked, want)
	}
	// Three of the four free slots are taken.
	if got := snap.Usage("a") + snap.Usage("b"); got != 4 {
		t.Errorf("usage of a and b %d, want 4 (the bound shoot and three waiting ones)", got)
	}
	for _, name := range []string{"m-evicted", "z-evicted", "a-new"} {
		if len(snap.CountedOn("garden-dev/"+name)) != 1 {
			t.Errorf("%s is counted on %v, want one seed", name, snap.CountedOn("garden-dev/"+name))
		}
	}
	for _, name := range []string{"b-deleting", "c-no-inputs"} {
		if on := snap.CountedOn("garden-dev/" + name); len(on) != 0 {
			t.Errorf("%s is counted on %v, want nothing", name, on)
		}
	}
}
