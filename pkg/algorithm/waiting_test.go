package algorithm

import (
	"errors"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/coretest"
)

// TestReserveForWaiting: evicted shoots take free slots before new ones,
// each group in name order; bound shoots, shoots being deleted and shoots
// whose inputs fail take nothing.
func TestReserveForWaiting(t *testing.T) {
	deleting := func(s *v1alpha1.Shoot) { s.DeletionTimestamp = &metav1.Time{} }
	bound := coretest.MakeShoot("garden-dev", "bound").Seed("b").StatusSeed("b").Obj()
	snap := snapshotOf([]*v1alpha1.Seed{coretest.MakeSeed("a").Allocatable(2).Obj(), coretest.MakeSeed("b").Allocatable(2).Obj()}, bound)
	shoots := []*v1alpha1.Shoot{
		coretest.MakeShoot("garden-dev", "a-new").Obj(),
		coretest.MakeShoot("garden-dev", "z-evicted").Annotation(v1alpha1.AnnotationDescheduledFrom, "old").Obj(),
		coretest.MakeShoot("garden-dev", "b-deleting").With(deleting).Obj(),
		coretest.MakeShoot("garden-dev", "c-no-inputs").Obj(),
		coretest.MakeShoot("garden-dev", "m-evicted").Annotation(v1alpha1.AnnotationDescheduledFrom, "old").Obj(),
		bound,
	}
	var asked []string
	ReserveForWaiting(snap, shoots, func(s *v1alpha1.Shoot) (Inputs, error) {
		asked = append(asked, s.Name)
		if s.Name == "c-no-inputs" {
			return Inputs{}, errors.New("no cloud profile")
		}
		return Inputs{CloudProfile: coretest.MakeCloudProfile("aws").Obj()}, nil
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
