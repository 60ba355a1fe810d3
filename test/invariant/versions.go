package invariant

import (
	"slices"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// version is one state of an object as the checker saw it: obj nil means the
// object did not exist (deleted).
type version struct {
	rv uint64
	// seen is when the checker learnt of this state; the state before it
	// stopped being current then, as far as anyone watching could tell.
	seen time.Time
	obj  metav1.Object
}

// versions is the history of one object, ordered by resourceVersion. The
// state before the first version is "absent" (not created yet); created says
// when that state stopped being current (zero: long before the checker
// started, for objects of its first list).
type versions struct {
	list    []version
	created time.Time
}

// add inserts a version in resourceVersion order; a version already known
// (same resourceVersion) keeps the time it was first seen.
func (vs *versions) add(v version) {
	i, found := slices.BinarySearchFunc(vs.list, v.rv, func(e version, rv uint64) int {
		switch {
		case e.rv < rv:
			return -1
		case e.rv > rv:
			return 1
		}
		return 0
	})
	if found {
		return
	}
	vs.list = slices.Insert(vs.list, i, v)
}

// at returns the state current at resourceVersion rv (nil: absent).
func (vs *versions) at(rv uint64) metav1.Object {
	var cur metav1.Object
	for _, v := range vs.list {
		if v.rv > rv {
			break
		}
		cur = v.obj
	}
	return cur
}

// latest returns the newest state known (nil: absent).
func (vs *versions) latest() metav1.Object {
	if len(vs.list) == 0 {
		return nil
	}
	return vs.list[len(vs.list)-1].obj
}

// candidates returns every state a component could have used for a write at
// resourceVersion rv, given that its view may lag by as long as from-to-now:
// the state current at rv, and every older state that was still current at
// or after from. A nil entry is the absent state.
func (vs *versions) candidates(rv uint64, from time.Time) []metav1.Object {
	var out []metav1.Object
	// The absent state before creation.
	if len(vs.list) == 0 || vs.list[0].rv > rv || !vs.created.IsZero() && !vs.created.Before(from) {
		out = append(out, nil)
	}
	for i, v := range vs.list {
		if v.rv > rv {
			break
		}
		next := i + 1
		if next < len(vs.list) && vs.list[next].rv <= rv && vs.list[next].seen.Before(from) {
			continue // superseded before the component could have read it
		}
		out = append(out, v.obj)
	}
	return out
}

// parseRV reads a resourceVersion as the number etcd made it; ok is false
// for anything else (an API server not backed by etcd).
func parseRV(rv string) (uint64, bool) {
	n, err := strconv.ParseUint(rv, 10, 64)
	return n, err == nil
}
