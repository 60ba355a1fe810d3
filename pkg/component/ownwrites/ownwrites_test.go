package ownwrites

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

func obj(uid, rv string) *metav1.ObjectMeta {
	return &metav1.ObjectMeta{UID: types.UID(uid), ResourceVersion: rv}
}

// Views older than the last own write are stale until the informer reaches
// it; then the tracking ends.
func TestObserveIgnoresViewsOlderThanTheWrite(t *testing.T) {
	tr := New[*metav1.ObjectMeta]()
	if !tr.Wrote("k", obj("u", "10")) {
		t.Fatal("the first write was refused")
	}
	if !tr.Observe("k", "9") {
		t.Error("a view older than the write is not stale")
	}
	if !tr.Shows("k", "10") || tr.Shows("k", "9") {
		t.Error("Shows does not compare with the write")
	}
	if tr.Observe("k", "10") {
		t.Error("the write's own version is stale")
	}
	if tr.Len() != 0 || tr.Observe("k", "9") {
		t.Error("the tracking did not end when the informer reached the write")
	}
}

// Answers of concurrent writes may come out of order: the later write stays.
func TestWroteKeepsTheLaterWrite(t *testing.T) {
	tr := New[*metav1.ObjectMeta]()
	tr.Wrote("k", obj("u", "12"))
	if tr.Wrote("k", obj("u", "11")) {
		t.Error("an older write replaced a later one")
	}
	if w, ok := tr.Written("k"); !ok || w.ResourceVersion != "12" {
		t.Errorf("written %v, want version 12", w)
	}
	// A version that cannot be ordered is not remembered.
	tr.Forget("k")
	tr.Wrote("k", obj("u", "not-a-version"))
	if tr.Len() != 0 {
		t.Error("an unorderable version was remembered")
	}
}

func TestFreshest(t *testing.T) {
	tr := New[*metav1.ObjectMeta]()
	written := obj("u", "20")
	tr.Wrote("k", written)
	if got := tr.Freshest("k", obj("u", "19")); got != written {
		t.Errorf("Freshest over an older cache = %v, want the written object", got)
	}
	recreated := obj("other", "15")
	if got := tr.Freshest("k", recreated); got != recreated || tr.Len() != 0 {
		t.Errorf("Freshest over a recreated object = %v, want the cache and the write forgotten", got)
	}
	tr.Wrote("k", written)
	caughtUp := obj("u", "21")
	if got := tr.Freshest("k", caughtUp); got != caughtUp || tr.Len() != 0 {
		t.Errorf("Freshest over a cache that caught up = %v, want the cache and the write forgotten", got)
	}
}
