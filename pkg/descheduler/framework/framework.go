package framework

import (
	"strings"
	"time"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/maintenance"
)

// SeedState is what a plugin sees of one seed during a pass. It is a
// read-only view: plugins must not modify the objects.
type SeedState struct {
	// Seed is the seed.
	Seed *v1alpha1.Seed
	// Shoots are the shoots whose spec.seedName is the seed, sorted by
	// namespace/name.
	Shoots []*v1alpha1.Shoot
	// Usage is how many shoots the seed counts by the shared usage rule
	// (algorithm.SeedNamesCountedFor): including control planes still there
	// while they migrate away.
	Usage int
	// Leaving is how many of the counted shoots are already on their way
	// elsewhere: those counted on the seed through status.seedName only
	// (their migration is in flight) and those being deleted (they free
	// their place anyway). Their departure must not be answered again.
	Leaving int
	// Now is the pass's clock.
	Now time.Time
	// TolerationStart returns when the shoot's toleration of a NoExecute
	// taint on the seed started to count (see taintclock.Start): the taint's
	// timeAdded, or when the descheduler first saw a taint without one, or
	// when the shoot arrived on the seed if that is later, so that a shoot
	// placed on a tainted seed gets its full tolerationSeconds.
	TolerationStart func(shoot *v1alpha1.Shoot, taint v1alpha1.SeedTaint) time.Time
}

// Candidate is a shoot a plugin wants evicted.
type Candidate struct {
	// Shoot is the shoot, as read.
	Shoot *v1alpha1.Shoot
	// Reason says why, for the annotation, the Event and lastOperation.
	Reason string
	// Cause is what the plugin acts on, the same in every pass while it
	// holds (a taint, "over capacity"): with the plugin and the seed it is
	// what an eviction is recorded under, so that no shoot is evicted twice
	// for the same cause within repeatEvictionWindow.
	Cause string
	// Force evicts even when no other seed fits the shoot (overrides requireFit).
	Force bool
	// Urgency is the class of the move: urgent (the zero value) moves at
	// once; a deferrable one waits for the shoot's maintenance window, or
	// for Deadline if that comes first.
	Urgency maintenance.Urgency
	// Deadline, for a deferrable move, is when it stops waiting for the
	// window; zero: it waits for the window however long.
	Deadline time.Time
}

// Result is a plugin's answer for one seed.
type Result struct {
	// Candidates are the shoots to evict, most urgent first.
	Candidates []Candidate
	// RequeueAfter, when positive, asks for another look at the seed after
	// that long (a toleration running out); no polling is needed otherwise.
	RequeueAfter time.Duration
}

// Plugin decides which shoots leave a seed. Implementations are pure: the
// same state gives the same result.
type Plugin interface {
	// Name is the plugin's configuration name.
	Name() string
	// Evaluate looks at one seed.
	Evaluate(state *SeedState) Result
}

// SeedFilter is implemented by a plugin that can tell from a seed's own
// facts, without its shoots, that Evaluate would answer nothing for it. The
// descheduler asks it first and gathers the shoots only of the seeds some
// plugin may act on, so that a pass costs in proportion to those seeds and
// their shoots, not to the whole garden. A plugin without it is given every
// seed's shoots.
type SeedFilter interface {
	// ActsOn reports whether Evaluate may return candidates or a requeue for
	// the seed. Only Seed, Usage, Leaving and Now of state are set. False
	// must mean that Evaluate returns an empty Result whatever the seed's
	// shoots are.
	ActsOn(state *SeedState) bool
}

// EvictionProtected reports whether the shoot carries graft.dev/evict: "false",
// which only NoExecuteTaints with force overrides.
func EvictionProtected(shoot *v1alpha1.Shoot) bool {
	return shoot.Annotations[v1alpha1.AnnotationEvict] == "false"
}

// ShootNames lists the candidates' shoots by name, comma-separated, in
// their order: how a plugin's answer reads in a log line or a test.
func ShootNames(cs []Candidate) string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.Shoot.Name
	}
	return strings.Join(names, ",")
}
