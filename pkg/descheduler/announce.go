package descheduler

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/record"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/algorithm"
	"github.com/graft-dev/graft/pkg/garden"
)

// maxSeedEventMessage bounds the message of a seed's Descheduled Event. A
// drain evicts hundreds of shoots in one pass; each has its own Descheduled
// Event, so past this length the seed's Event names the first shoots and
// counts the rest.
const maxSeedEventMessage = 1024

// passEvictions collects the evictions a pass wrote, by seed, so that each
// seed gets one Descheduled Event per pass instead of one per shoot. Every
// shoot keeps its own Event. One Event per shoot on the seed also cost a
// write per move, and client-go's Event spam filter (a burst of 25 per
// object, then one every five minutes) dropped most of them in a drain
// anyway: the seed's Event per pass names every shoot the filter used to
// drop.
type passEvictions struct {
	mu     sync.Mutex
	bySeed map[string]*seedEvictions
}

// seedEvictions are one seed's evictions of a pass, in the order written.
type seedEvictions struct {
	seed    *v1alpha1.Seed
	shoots  []string
	reasons []string
}

// add records a written eviction; the pass's writers call it concurrently.
func (p *passEvictions) add(e eviction) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bySeed == nil {
		p.bySeed = map[string]*seedEvictions{}
	}
	s := p.bySeed[e.seed.Name]
	if s == nil {
		s = &seedEvictions{seed: e.seed}
		p.bySeed[e.seed.Name] = s
	}
	s.shoots = append(s.shoots, algorithm.ShootKey(e.shoot))
	s.reasons = append(s.reasons, e.plugin+": "+e.reason)
}

// announce emits one Descheduled Event on each seed the pass evicted from.
// verb says what happened to the shoots (garden.Mover's Verb).
func (p *passEvictions) announce(api garden.API, verb string, recorder record.EventRecorder) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, name := range slices.Sorted(maps.Keys(p.bySeed)) {
		s := p.bySeed[name]
		recorder.Event(api.SeedRef(s.seed), corev1.EventTypeNormal, EventDescheduled, s.message(verb))
	}
}

// message reads as the per-shoot Event on the seed did for a single
// eviction ("Evicted shoot ns/a: REASON"; verb says what happened to the
// shoots). Several are grouped by reason,
// each reason followed by its shoots: "Evicted 3 shoots; REASON1: ns/a,
// ns/b; REASON2: ns/c". Past maxSeedEventMessage the shoots left out are
// counted ("... and 950 more"); the first reason and shoot are always named.
func (s *seedEvictions) message(verb string) string {
	if len(s.shoots) == 1 {
		return fmt.Sprintf("%s shoot %s: %s", verb, s.shoots[0], s.reasons[0])
	}
	// Reasons in the order first written, shoots sorted within each.
	var order []string
	byReason := map[string][]string{}
	for i, r := range s.reasons {
		if _, ok := byReason[r]; !ok {
			order = append(order, r)
		}
		byReason[r] = append(byReason[r], s.shoots[i])
	}
	limit := maxSeedEventMessage - len(fmt.Sprintf(" and %d more", len(s.shoots)))
	var b strings.Builder
	fmt.Fprintf(&b, "%s %d shoots", verb, len(s.shoots))
	named := 0
	fits := func(more ...string) bool {
		n := b.Len()
		for _, m := range more {
			n += len(m)
		}
		return named == 0 || n <= limit
	}
groups:
	for _, r := range order {
		keys := byReason[r]
		slices.Sort(keys)
		if !fits("; ", r, ": ", keys[0]) {
			break
		}
		b.WriteString("; " + r + ": " + keys[0])
		named++
		for _, k := range keys[1:] {
			if !fits(", ", k) {
				break groups
			}
			b.WriteString(", " + k)
			named++
		}
	}
	if rest := len(s.shoots) - named; rest > 0 {
		fmt.Fprintf(&b, " and %d more", rest)
	}
	return b.String()
}
