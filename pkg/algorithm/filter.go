package algorithm

import "slices"

// A filter plugin is one step of a decision, whole: the seeds it rejects, what
// it reads of a seed once, when the seed enters the snapshot, when it cannot
// reject anything and is not run, its headline, and through its reasons the
// short name, per-seed message and queueing hint of every Filter it gives.
// pipeline orders the plugins; everything else that knows the order of the
// filters (FilterCode, StableReason, Short) derives it from there.
type filterPlugin struct {
	// reasons are the Filters the plugin gives, the first naming the step.
	reasons []*reason
	// check returns the reason the candidate is rejected for, or "". A plugin
	// with a mark and no check rejects the marked seeds.
	check func(r *run, v *verdict) Filter
	// aside makes the plugin a preference instead: the seeds it holds for are
	// set aside while others are left, and it never fails the decision.
	aside func(r *run, info *seedInfo) bool
	// prepare runs before the plugin looks at its first seed.
	prepare func(r *run)
	// off reports that the plugin cannot reject a seed for this decision (the
	// shoot asks nothing it checks).
	off func(r *run) bool
	// mark is what the plugin reads of a seed, once, when the seed enters the
	// snapshot (from the seed's other prepared facts). A decision skips the
	// plugin while no seed of the snapshot is marked.
	mark func(info *seedInfo) bool
	// headline is the reference scheduler's message when the plugin removed
	// the last of the entering candidates.
	headline func(r *run, entering int) string

	// markIndex places a marked plugin in seedInfo.marks (a bit) and
	// Snapshot.marks, from pipeline's order.
	markIndex int
}

// reason is one Filter's words and hint.
type reason struct {
	filter Filter
	// short is the Filter in a few words, for summaries ("no capacity").
	short string
	// message says why the seed of v was rejected, for explanations.
	message func(r *run, v *verdict) string
	// lifts tells whether a change of a seed from old to cur can make it pass
	// a rejection for this reason (hints.go). nil: any change may, except for a
	// marked plugin's reason, lifted when the mark goes.
	lifts func(old, cur *seedInfo) bool
}

// pipeline is the order a decision applies the filter plugins in: Gardener's
// scheduler's, with graft's own steps where they belong (docs/algorithm.md).
// A new filter is one file defining its plugin and one line here.
var pipeline = []*filterPlugin{
	excludedPlugin,
	usablePlugin,
	cloudProfileSelectorPlugin,
	shootSelectorPlugin,
	providerPlugin,
	highAvailabilityPlugin,
	zonePinningPlugin,
	zoneSelectionPlugin,
	zonePreferencePlugin,
	accessRestrictionsPlugin,
	domainPlugin,
	emergencyStopPlugin,
	migrationPlugin,
	evacuatingPlugin,
	candidatePlugin,
	strategyPlugin,
	moveStaysLongerPlugin,
}

// choiceReasons are the reasons of the choice among the seeds the pipeline
// left (choice.go), in the order it gives them.
var choiceReasons = []*reason{limitedStayReason, preferNoScheduleReason, minimalDistanceReason, leastUsedReason, scoreReason}

var (
	// filterOrderList is every Filter in the order a decision applies it.
	filterOrderList []Filter
	// reasons are the Filters' words and hints.
	reasons = map[Filter]*reason{}
	// marked are the plugins with a mark, at most maxMarks.
	marked []*filterPlugin
)

// maxMarks bounds the plugins with a mark (Snapshot.marks).
const maxMarks = 8

func init() {
	add := func(list []*reason) {
		for _, rs := range list {
			if _, ok := reasons[rs.filter]; !ok {
				reasons[rs.filter] = rs
				filterOrderList = append(filterOrderList, rs.filter)
			}
		}
	}
	for _, p := range pipeline {
		if p.mark != nil {
			if len(marked) == maxMarks {
				panic("algorithm: more marked filter plugins than maxMarks")
			}
			p.markIndex = len(marked)
			marked = append(marked, p)
			if rs := p.reasons[0]; rs.lifts == nil {
				rs.lifts = func(old, cur *seedInfo) bool { return old.marked(p) && !cur.marked(p) }
			}
		}
		add(p.reasons)
	}
	add(choiceReasons)
}

func filterOrder(f Filter) int { return slices.Index(filterOrderList, f) }

// shortOf is the Filter in a few words.
func shortOf(f Filter) string {
	if rs := reasons[f]; rs != nil {
		return rs.short
	}
	return string(f)
}

// skipped reports whether the plugin is not run for this decision.
func (p *filterPlugin) skipped(r *run) bool {
	if p.off != nil && p.off(r) {
		return true
	}
	return p.mark != nil && r.snap.marks[p.markIndex] == 0
}

// rejects is the plugin's verdict on one candidate.
func (p *filterPlugin) rejects(r *run, v *verdict) Filter {
	if p.check != nil {
		return p.check(r, v)
	}
	if v.info.marked(p) {
		return p.reasons[0].filter
	}
	return ""
}

// seedMarks are the marks of a seed entering the snapshot.
func seedMarks(info *seedInfo) uint64 {
	var m uint64
	for _, p := range marked {
		if p.mark(info) {
			m |= 1 << p.markIndex
		}
	}
	return m
}

// marked reports whether the marked plugin p marks the seed.
func (info *seedInfo) marked(p *filterPlugin) bool { return info.marks&(1<<p.markIndex) != 0 }

// runPipeline applies the plugins until one removes the last candidate, and
// reports whether candidates are left.
func (r *run) runPipeline() bool {
	alive := len(r.verdicts)
	if alive == 0 {
		r.failStep = usablePlugin
		return false
	}
	for _, p := range pipeline {
		if p.skipped(r) {
			continue
		}
		if p.prepare != nil {
			p.prepare(r)
		}
		if p.aside != nil {
			alive -= r.setAside(p.aside, p.reasons[0].filter)
			continue
		}
		entering := alive
		for i := range r.verdicts {
			v := &r.verdicts[i]
			if v.filter != "" {
				continue
			}
			if f := p.rejects(r, v); f != "" {
				v.filter = f
				alive--
			}
		}
		if alive == 0 {
			r.failStep, r.failEntering = p, entering
			r.failFilter = r.mostFrequent(p.reasons)
			return false
		}
	}
	return true
}

// mostFrequent returns which of the reasons rejected the most seeds, the
// first on ties.
func (r *run) mostFrequent(list []*reason) Filter {
	best, bestCount := list[0].filter, -1
	for _, rs := range list {
		n := 0
		for i := range r.verdicts {
			if r.verdicts[i].filter == rs.filter {
				n++
			}
		}
		if n > bestCount {
			best, bestCount = rs.filter, n
		}
	}
	return best
}
