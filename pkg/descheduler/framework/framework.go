package framework

import (
	"slices"
	"strings"
	"time"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/apis/core/v1alpha1/helper"
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
	// Away is how many of the shoots counted on the seed through
	// spec.seedName belong to another region than the seed's.
	Away int
	// Now is the pass's clock.
	Now time.Time
	// Landscape is the spread of utilisation over the garden's seeds at the
	// pass's start, for plugins whose marks are relative to the mean. It is
	// set when an improving plugin (ChurnLimited) is enabled.
	Landscape Spread
	// Region is the same spread over the seeds of the seed's region.
	Region Spread
	// AnyTime is set for a plan of moves over time rather than a pass: the
	// improving plugins then propose shoots whatever their window
	// (MovableNow).
	AnyTime bool
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
	// window; zero: it waits for the window however long, or MaxDeferral.
	Deadline time.Time
	// MaxDeferral, for a deferrable move without a Deadline, bounds its
	// wait: the descheduler makes its deadline MaxDeferral after it first
	// looked at the move. A plugin that cannot name a deadline sets it, so
	// that a tenant moving its window ahead before each opening cannot put
	// its move off for ever. Zero: no bound.
	MaxDeferral time.Duration
	// Improves, when set, makes the candidate an improvement rather than a
	// shoot that must leave: the descheduler moves it only to the seed the
	// scheduler would choose for it now (algorithm.Reconsider), only when
	// that is another seed and Improves accepts the move, and never with
	// Force. Such a move is one the scheduler would not reverse.
	Improves Improvement
}

// MaxFruitless is how many of a seed's improving candidates in a row may
// find no improvement before the rest of them are left for the next pass:
// shoots of one seed mostly have the same choice of seeds, and each try
// costs a scheduling decision.
const MaxFruitless = 3

// Improvement judges the move an improving plugin proposed, once the
// descheduler knows where the scheduler would put the shoot.
type Improvement interface {
	// Accepts returns "" when the move is the improvement the plugin wants,
	// or why it is not.
	Accepts(m Move) (why string)
}

// Move is a move to the seed the scheduler would choose for a shoot now.
type Move struct {
	Shoot    *v1alpha1.Shoot
	From, To *v1alpha1.Seed
	// ToUsage is the shoots counted on To as the pass
	// has moved them so far, the shoot itself left out.
	ToUsage int
	// Closer tells that To is nearer the shoot's region than From by the
	// strategy's measure (algorithm.Reconsideration.Closer).
	Closer bool
}

// Churn bounds the moves of an improving plugin (ChurnLimited): none of
// them is needed, so each costs a tenant downtime for a gain only.
type Churn struct {
	// MaxMovesPerPass bounds the plugin's moves in one pass window
	// (interval); 0: no bound.
	MaxMovesPerPass int
	// MaxMovesPerHour bounds them in any hour; 0: no bound.
	MaxMovesPerHour int
	// CoolDown is how long a shoot the descheduler moved (for any cause)
	// is not moved by an improving plugin, by the descheduler's signed
	// record on the shoot and its own memory.
	CoolDown time.Duration
}

// ChurnLimited is implemented by the plugins whose moves improve placements
// (their candidates set Improves): the descheduler enforces their Churn.
type ChurnLimited interface {
	Churn() Churn
}

// Spread is the utilisation (shoots counted over allocatable shoots) of the
// seeds that declare allocatable shoots.
type Spread struct {
	// Seeds is how many seeds declare allocatable shoots; the rest are 0.
	Seeds          int
	Mean, Min, Max float64
}

// Utilisation is a seed's shoots counted over its allocatable shoots, and
// whether it declares any.
func Utilisation(seed *v1alpha1.Seed, usage int) (float64, bool) {
	q, ok := seed.Status.Allocatable[v1alpha1.ResourceShoots]
	if !ok || q.Value() <= 0 {
		return 0, false
	}
	return float64(usage) / float64(q.Value()), true
}

// Result is a plugin's answer for one seed.
type Result struct {
	// Candidates are the shoots to evict, most urgent first.
	Candidates []Candidate
	// RequeueAfter, when positive, asks for another look at the seed after
	// that long (a toleration running out); no polling is needed otherwise.
	RequeueAfter time.Duration
	// Want, when positive, is how many of the candidates the plugin wants
	// moved: the others are alternatives, tried in order only while fewer
	// have moved in the pass.
	Want int
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
	// the seed. Only Seed, Usage, Leaving, Away, Now, Landscape and Region
	// of state are set. False
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

// MovableNow tells whether a move that waits for the shoot's maintenance
// window may happen at the state's Now, and when not, when the window opens
// next. A shoot without a window, or with one that does not parse (admission
// refuses it), may move at any time, as the descheduler's timing reads it.
// The improving plugins propose only such shoots, so that a move they want
// never waits in the descheduler's queue for hours; for a plan (AnyTime)
// every shoot may move, the plan saying when.
func (s *SeedState) MovableNow(shoot *v1alpha1.Shoot) (bool, time.Time) {
	now, next, _ := s.movable(shoot)
	return now, next
}

// movable is MovableNow with, for a shoot movable now in a window, the
// first moment that window no longer contains (zero for none), from one
// read of the window.
func (s *SeedState) movable(shoot *v1alpha1.Shoot) (now bool, opens, closes time.Time) {
	if s.AnyTime {
		return true, s.Now, time.Time{}
	}
	w, _ := maintenance.Of(shoot)
	if w.IsAlways() {
		return true, s.Now, time.Time{}
	}
	start, end := w.Next(s.Now)
	if w.Contains(s.Now) {
		// Contains takes the window's end in, to the second.
		return true, s.Now, end.Add(time.Second)
	}
	return false, start, time.Time{}
}

// Improvable returns the shoots of the state an improving plugin may
// propose now, of those keep accepts: not protected (graft.dev/evict:
// "false"), last operation not failed, maintenance window open
// (MovableNow); and when that set changes next by the clock alone: the
// first of the others' windows opens or of theirs closes (zero when no
// window does). A plugin asks to be looked at again then, so that what the
// clock changes never waits for the next interval.
func (s *SeedState) Improvable(keep func(*v1alpha1.Shoot) bool) ([]*v1alpha1.Shoot, time.Time) {
	var out []*v1alpha1.Shoot
	var next time.Time
	earliest := func(t time.Time) {
		if next.IsZero() || t.Before(next) {
			next = t
		}
	}
	for _, shoot := range s.Shoots {
		if !keep(shoot) || EvictionProtected(shoot) || maintenance.LastOperationFailed(shoot) {
			continue
		}
		now, opens, closes := s.movable(shoot)
		if !now {
			earliest(opens)
			continue
		}
		if !closes.IsZero() {
			earliest(closes)
		}
		out = append(out, shoot)
	}
	return out, next
}

// OrderMoves orders a seed's moves of one urgency, given in their base
// order (the plugin's, or the plan's by name), as the pass takes them and
// the drain plan shows them: those whose last operation failed after the
// others (their move is the likeliest to fail too); and within a project,
// hibernated shoots (no control plane runs: moving them disrupts nobody)
// before that project's running ones, each keeping the places its project's
// moves had. Hibernation reorders only its own project's moves: where RBAC
// grants a tenant shoots/status it can report its running shoot
// hibernated, which must not take a free slot from another tenant's move.
// A tenant that breaks its own shoot only puts that shoot last.
func OrderMoves[T any](items []T, shoot func(T) *v1alpha1.Shoot) []T {
	out := make([]T, 0, len(items))
	var failed []T
	for _, it := range items {
		if maintenance.LastOperationFailed(shoot(it)) {
			failed = append(failed, it)
		} else {
			out = append(out, it)
		}
	}
	// Most moves have no hibernated shoot among them: nothing to reorder.
	if !slices.ContainsFunc(out, func(it T) bool { return helper.ShootHibernated(shoot(it)) }) {
		return append(out, failed...)
	}
	places := map[string][]int{}
	var projects []string
	for i, it := range out {
		ns := shoot(it).Namespace
		if _, ok := places[ns]; !ok {
			projects = append(projects, ns)
		}
		places[ns] = append(places[ns], i)
	}
	ordered := slices.Clone(out)
	for _, ns := range projects {
		var mine []T
		for _, i := range places[ns] {
			mine = append(mine, out[i])
		}
		slices.SortStableFunc(mine, func(a, b T) int {
			ha, hb := helper.ShootHibernated(shoot(a)), helper.ShootHibernated(shoot(b))
			switch {
			case ha == hb:
				return 0
			case ha:
				return -1
			}
			return 1
		})
		for j, i := range places[ns] {
			ordered[i] = mine[j]
		}
	}
	return append(ordered, failed...)
}

// ProjectShares splits n moves off a seed between the projects of shoots
// (the shoots that could leave it, movable now or not) in proportion to
// their shoots there, by largest remainder (ties to the project with more
// shoots, then by name). A plugin that picks n of a seed's shoots takes at
// most a project's share from it: a tenant whose shoots cannot move now
// (windows closed, last operation failed) puts off its own moves, and never
// gets another project's shoots moved in their place.
func ProjectShares(shoots []*v1alpha1.Shoot, n int) map[string]int {
	count := map[string]int{}
	for _, s := range shoots {
		count[s.Namespace]++
	}
	total := len(shoots)
	out := make(map[string]int, len(count))
	if total == 0 || n <= 0 {
		return out
	}
	n = min(n, total)
	type rest struct {
		ns        string
		remainder int
	}
	var rests []rest
	given := 0
	for ns, c := range count {
		out[ns] = c * n / total
		given += out[ns]
		rests = append(rests, rest{ns, c * n % total})
	}
	slices.SortFunc(rests, func(a, b rest) int {
		if a.remainder != b.remainder {
			return b.remainder - a.remainder
		}
		if count[a.ns] != count[b.ns] {
			return count[b.ns] - count[a.ns]
		}
		return strings.Compare(a.ns, b.ns)
	})
	for i := 0; given < n; i++ {
		out[rests[i].ns]++
		given++
	}
	return out
}
