package seedcmd

import (
	"strings"

	corev1alpha1 "github.com/graft-dev/graft/apis/core/v1alpha1"
)

// Resource is a resource type named on graftctl's command line.
type Resource int

const (
	// UnknownResource is a name graftctl does not act on.
	UnknownResource Resource = iota
	// Seeds is core.graft.dev's seeds.
	Seeds
	// Shoots is core.graft.dev's shoots.
	Shoots
)

// ResourceOf reads a resource type as the commands accept it: singular or
// plural, alone or qualified with the core.graft.dev group, in any case, as
// kubectl reads node, nodes and nodes.v1. The spellings are written here only,
// so that get, describe and taint accept the same ones.
func ResourceOf(arg string) Resource {
	name, group, qualified := strings.Cut(strings.ToLower(arg), ".")
	if qualified && group != corev1alpha1.GroupName {
		return UnknownResource
	}
	switch name {
	case "seed", "seeds":
		return Seeds
	case "shoot", "shoots":
		return Shoots
	}
	return UnknownResource
}
